import assert from "node:assert/strict";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { inTransaction } from "../../../relayer/src/db/client.js";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import type { OutboxEvent } from "../../../relayer/src/webhooks/event-kinds.js";
import { insertOutboxEvents } from "../../../relayer/src/webhooks/outbox.js";
import { releaseConfirmedEvents } from "../../../relayer/src/webhooks/release-events.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";
import { startReceiver, type Receiver } from "./receiver.js";

/** A receiver that accepts TCP connections and never answers (each attempt waits out its 5 s). */
interface BlackHole {
  url(path: string): string;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

async function startBlackHole(): Promise<BlackHole> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Fair delivery (docs/webhooks.md "Fair delivery"): organization X has 10 webhooks aimed at a
 * host that accepts TCP and never answers, and a backlog of 1,000 deliveries; organization Y's
 * delivery must still arrive within a few seconds. Real anvil, PostgreSQL, pg-boss workers with
 * the production knobs (16 slots, 5 s deadline), and local receivers.
 */
describe("fair webhook delivery across organizations", { timeout: 180_000 }, () => {
  let stack: WriteStack;
  let workers: WebhookWorkersHandle | undefined;
  let receiver: Receiver;
  let hole: BlackHole;
  let orgX: TestOrg;
  let orgY: TestOrg;
  const xHooks: string[] = [];

  before(async () => {
    stack = await startWriteStack({ config: { webhookManualPerMinute: 5 } });
    receiver = await startReceiver();
    hole = await startBlackHole();
    orgX = await stack.registerOrg();
    orgY = await stack.registerOrg();
    for (let i = 0; i < 10; i += 1) {
      const res = await orgX.api("POST", "/api/enterprise/webhooks", {
        body: { url: hole.url(`/x${i}`), events: ["asset.issued"] },
      });
      assert.equal(res.status, 200, res.text);
      xHooks.push(res.body.webhookId);
    }
    const res = await orgY.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/y"), events: ["asset.issued"] },
    });
    assert.equal(res.status, 200, res.text);
  });

  after(async () => {
    await workers?.stop();
    await hole?.close();
    await receiver?.close();
    await stack?.stop();
  });

  it("org Y's delivery does not wait behind org X's 10 dead webhooks hold a backlog of 1,000", async () => {
    // X's backlog: 100 events x 10 webhooks, released by the indexer's own fan-out.
    const events: OutboxEvent[] = Array.from({ length: 100 }, (_, i) => ({
      id: `evt_fairness_${String(i).padStart(4, "0")}`,
      orgId: orgX.orgId,
      kind: "asset.issued",
      blockNumber: 0,
      blockHash: null,
      txHash: null,
      logIndex: i,
      payload: {
        event: "asset.issued",
        timestamp: Date.now(),
        orgId: orgX.orgId,
        txHash: null,
        blockNumber: 0,
        data: { tokenId: String(100_000 + i) },
      },
    }));
    const created = await inTransaction(stack.database, async (client) => {
      await insertOutboxEvents(client, events, "pending");
      return releaseConfirmedEvents(client, stack.ctx.deliveries, 0);
    });
    assert.equal(created, 1_000);

    workers = await startWebhookWorkers(stack.ctx);
    // X's receivers are being tried (every attempt then hangs until its deadline).
    await waitFor(
      "X's attempts to reach the dead host",
      () => (hole.connections() >= 4 ? true : undefined),
      20_000,
    );

    const issued = await orgY.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "fairness" }),
      timeoutMs: 60_000,
    });
    assert.equal(issued.status, 200, issued.text);
    const tokenId = String(issued.body.tokenId);
    const delivery = await waitFor(
      `org Y's asset.issued for token ${tokenId}`,
      () =>
        receiver
          .accepted("/y")
          .find((d) => d.json.event === "asset.issued" && String(d.json.data.tokenId) === tokenId),
      30_000,
    );
    // Each of X's 1,000 attempts hangs until its 5 s deadline: in line behind them, Y would wait
    // minutes. Y's delivery came while X's backlog had barely started.
    const xAttempts = hole.connections();
    assert.ok(delivery, "org Y's delivery arrived");
    assert.ok(xAttempts < 500, `org Y's delivery came after ${xAttempts} of X's 1,000 attempts`);
  });

  it("opens the circuit of a webhook that keeps timing out and shows the hold in its delivery log", async () => {
    const orgZ = await stack.registerOrg();
    const created = await orgZ.api("POST", "/api/enterprise/webhooks", {
      body: { url: hole.url("/z"), events: ["asset.issued"] },
    });
    assert.equal(created.status, 200, created.text);
    const webhookId = created.body.webhookId as string;
    const path = `/api/enterprise/webhooks/${webhookId}`;
    // Three pings time out together (3 of Z's 4 slots): the third failure opens the circuit.
    for (let i = 0; i < 3; i += 1) {
      const ping = await orgZ.api("POST", `${path}/test`);
      assert.equal(ping.status, 202, ping.text);
    }
    const log = await waitFor(
      "an open circuit on Z's webhook",
      async () => {
        const res = await orgZ.api("GET", `${path}/deliveries`);
        assert.equal(res.status, 200, res.text);
        return res.body.circuit.state === "open" ? res.body : undefined;
      },
      20_000,
    );
    assert.equal(log.circuit.consecutiveFailures, 3);
    assert.match(
      log.circuit.reason,
      /^3 timeouts or connection failures in a row \(last: Timeout after \d+ ms\)$/,
    );
    assert.ok(Date.parse(log.circuit.openUntil) > Date.now());
    // A new delivery is held: its log says why and until when, and no request is made.
    const connectionsBefore = hole.connections();
    const ping = await orgZ.api("POST", `${path}/test`);
    const held = await waitFor(
      "the held delivery",
      async () => {
        const res = await orgZ.api("GET", `${path}/deliveries`);
        return (
          res.body.deliveries as Array<{
            deliveryId: string;
            lastError: string | null;
            attempts: number;
            status: string;
            nextAttemptAt: string | null;
          }>
        ).find((d) => d.deliveryId === ping.body.deliveryId && d.lastError !== null);
      },
      10_000,
    );
    assert.equal(held.status, "retrying");
    assert.equal(held.attempts, 0);
    assert.equal(held.nextAttemptAt, log.circuit.openUntil);
    assert.equal(
      held.lastError,
      `Held by the circuit breaker until ${log.circuit.openUntil}: ${log.circuit.reason}`,
    );
    assert.equal(hole.connections(), connectionsBefore);
    // Y is not touched by X's circuit.
    const y = await orgY.api("GET", "/api/enterprise/webhooks");
    const yHook = y.body.webhooks[0].webhookId;
    const yLog = await orgY.api("GET", `/api/enterprise/webhooks/${yHook}/deliveries`);
    assert.equal(yLog.body.circuit.state, "closed");

    // X never held more than its share: at most 4 of its attempts overlapped in time.
    const { rows } = await stack.database.pool.query<{ overlap: number; attempts: number }>(
      `WITH x AS (
         SELECT a.started_at AS s, a.started_at + make_interval(secs => a.latency_ms / 1000.0) AS e
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.org_id = $1)
       SELECT (SELECT count(*)::int FROM x) AS attempts,
              COALESCE((SELECT max((SELECT count(*) FROM x y WHERE y.s <= x.s AND y.e > x.s))::int FROM x), 0) AS overlap`,
      [orgX.orgId],
    );
    console.log(`X: ${rows[0]!.attempts} attempts, at most ${rows[0]!.overlap} at once`);
    assert.ok(rows[0]!.attempts >= 4, `X made ${rows[0]!.attempts} attempts`);
    assert.ok(rows[0]!.overlap <= 4, `${rows[0]!.overlap} of X's attempts overlapped`);
  });

  it("test and redeliver calls are rate-limited per organization with 429 and Retry-After", async () => {
    const res = await orgY.api("GET", "/api/enterprise/webhooks");
    const yHook = res.body.webhooks[0].webhookId as string;
    // The stack allows 5 manual calls a minute per organization.
    for (let i = 0; i < 5; i += 1) {
      const ok = await orgY.api("POST", `/api/enterprise/webhooks/${yHook}/test`);
      assert.equal(ok.status, 202, ok.text);
    }
    const limited = await orgY.api("POST", `/api/enterprise/webhooks/${yHook}/test`);
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.body, { error: "Too many webhook test, redeliver or replay calls" });
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    const deliveries = await orgY.api("GET", `/api/enterprise/webhooks/${yHook}/deliveries`);
    const one = deliveries.body.deliveries[0].deliveryId as string;
    const redeliver = await orgY.api(
      "POST",
      `/api/enterprise/webhooks/${yHook}/deliveries/${one}/redeliver`,
    );
    assert.equal(redeliver.status, 429);
    // Another organization keeps its own allowance.
    const other = await orgX.api("POST", `/api/enterprise/webhooks/${xHooks[1]}/test`);
    assert.equal(other.status, 202, other.text);
  });
});
