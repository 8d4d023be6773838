import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { seedReadModel } from "./seed-read-model.js";
import { assertError } from "../../support/assert-error.js";

const COUNT = 100;

describe("read API: conditional requests and shared reads", () => {
  let stack: TestStack;
  const get = (path: string, headers: Record<string, string> = {}) =>
    stack.api("GET", path, { headers });

  before(async () => {
    stack = await startTestStack({ deploy: false, logLevel: "warn" });
    await seedReadModel(stack.database.pool, COUNT);
  });
  after(async () => {
    await stack?.stop();
  });

  /** Counts the pool connections taken while `run` runs (each read query takes one). */
  async function countConnections(run: () => Promise<void>): Promise<number> {
    const pool = stack.database.pool as { connect: (...args: unknown[]) => unknown };
    const original = pool.connect;
    let count = 0;
    pool.connect = (...args: unknown[]) => {
      count += 1;
      return original.apply(stack.database.pool, args);
    };
    try {
      await run();
    } finally {
      pool.connect = original;
    }
    return count;
  }

  /** Waits until PostgreSQL shows `n` sessions waiting on a lock (watched from outside the pool). */
  async function waitForLockWaiters(observer: pg.Client, n: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rows } = await observer.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if ((rows[0]?.n ?? 0) >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`fewer than ${n} sessions waited on the lock`);
  }

  it("GET /assets answers with a weak ETag and no-cache, and 304 with no body to If-None-Match", async () => {
    const first = await get("/api/v1/assets?limit=5");
    assert.equal(first.status, 200);
    const etag = first.headers.get("etag") ?? "";
    assert.match(etag, /^W\/"[0-9a-f]+-[A-Za-z0-9+/]+"$/);
    assert.equal(first.headers.get("cache-control"), "no-cache");
    assert.equal(first.headers.get("vary"), null, "a public read does not vary on credentials");

    const again = await get("/api/v1/assets?limit=5", { "if-none-match": etag });
    assert.equal(again.status, 304);
    assert.equal(again.text, "");
    assert.equal(again.headers.get("etag"), etag);

    const other = await get("/api/v1/assets?limit=5", { "if-none-match": 'W/"0-nope"' });
    assert.equal(other.status, 200);
    assert.deepEqual(other.body, first.body);
  });

  it("an asset's ETag changes when the indexed data changes, so a stale If-None-Match gets 200", async () => {
    const before = await get("/api/v1/assets/7");
    const etag = before.headers.get("etag") ?? "";
    assert.equal((await get("/api/v1/assets/7", { "if-none-match": etag })).status, 304);
    await stack.database.pool.query(
      "UPDATE assets SET owner = '0x00000000000000000000000000000000000000c3' WHERE token_id = 7",
    );
    const after = await get("/api/v1/assets/7", { "if-none-match": etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get("etag"), etag);
    assert.equal(after.body.owner, "0x00000000000000000000000000000000000000C3");
  });

  it("errors carry no ETag and are never 304", async () => {
    const missing = await get("/api/v1/assets/999999", { "if-none-match": "*" });
    assertError(missing, 404, "Asset not found");
    assert.equal(missing.headers.get("etag"), null);
  });

  it("identical list requests arriving while the database is busy share one query and one answer", async () => {
    // Occupy every pool connection, so the requests all arrive before any query can be sent.
    const pool = stack.database.pool;
    const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
    let responses: Awaited<ReturnType<typeof get>>[] = [];
    const connections = await countConnections(async () => {
      const pending = Array.from({ length: 10 }, () => get("/api/v1/assets?limit=20"));
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const client of held) client.release();
      responses = await Promise.all(pending);
    });
    assert.equal(connections, 1);
    assert.ok(responses.every((res) => res.status === 200));
    assert.ok(responses.every((res) => res.text === responses[0]?.text));
    assert.equal(responses[0]?.body.data.length, 20);
  });

  it("by-id reads arriving together share one statement, and each gets its own asset or 404", async () => {
    const pool = stack.database.pool;
    const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
    const ids = ["3", "7", "7", "42", `${COUNT + 5}`, "99", `${COUNT + 900}`];
    let responses: Awaited<ReturnType<typeof get>>[] = [];
    const connections = await countConnections(async () => {
      const pending = ids.map((id) => get(`/api/v1/assets/${id}`));
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const client of held) client.release();
      responses = await Promise.all(pending);
    });
    assert.equal(connections, 1);
    ids.forEach((id, i) => {
      const res = responses[i]!;
      if (Number(id) > COUNT) assertError(res, 404, "Asset not found");
      else assert.equal(res.body.tokenId, id, `the answer to /assets/${id}`);
    });
  });

  it("a read arriving after an identical one was sent runs its own query, so it never answers with data older than its arrival", async () => {
    const locker = await stack.database.pool.connect();
    const observer = new pg.Client({ connectionString: stack.testDatabase.url });
    await observer.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE assets IN ACCESS EXCLUSIVE MODE");
      let second: Promise<Awaited<ReturnType<typeof get>>> | undefined;
      const connections = await countConnections(async () => {
        const first = get("/api/v1/assets/11");
        await waitForLockWaiters(observer, 1); // the first read's query is at the server, blocked
        second = get("/api/v1/assets/11");
        await waitForLockWaiters(observer, 2);
        await locker.query(
          "UPDATE assets SET owner = '0x00000000000000000000000000000000000000d4' WHERE token_id = 11",
        );
        await locker.query("COMMIT");
        assert.equal((await first).status, 200);
      });
      const late = await second;
      assert.equal(connections, 2);
      assert.equal(late?.body.owner, "0x00000000000000000000000000000000000000D4");
    } finally {
      locker.release();
      await observer.end();
    }
  });
});
