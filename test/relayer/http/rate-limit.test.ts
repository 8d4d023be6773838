import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { assertError } from "../../support/assert-error.js";
import { hashApiKey } from "../../../relayer/src/auth/api-key-format.js";

describe("rate limits (PostgreSQL counters)", () => {
  let stack: TestStack;

  before(async () => {
    stack = await startTestStack();
  });
  after(async () => {
    await stack?.stop();
  });

  it("free plan: the 11th request in a minute is 429 Rate limit exceeded with Retry-After", async () => {
    const org = await stack.registerOrg({ plan: "free" });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1)
      statuses.push((await org.api("GET", "/api/enterprise/keys")).status);
    assert.deepEqual(statuses, Array(10).fill(200));
    const res = await org.api("GET", "/api/enterprise/wallet");
    assertError(res, 429, "Rate limit exceeded");
    const retryAfter = Number(res.headers.get("retry-after"));
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    );
  });

  it("the org limit covers all of its keys together", async () => {
    const org = await stack.registerOrg({ plan: "free" });
    const second = await org.api("POST", "/api/enterprise/keys", { body: { scopes: ["read"] } });
    assert.equal(second.status, 200);
    for (let i = 0; i < 9; i += 1)
      assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
    const res = await stack.api("GET", "/api/enterprise/keys", { apiKey: second.body.apiKey });
    assert.equal(res.status, 429);
  });

  it("per-key limit applies on generous plans (config.apiKeyRateLimitPerMinute)", async () => {
    const org = await stack.registerOrg({ plan: "enterprise" });
    const other = await stack.registerOrg({ plan: "enterprise" });
    const saved = stack.ctx.config.apiKeyRateLimitPerMinute;
    stack.ctx.config.apiKeyRateLimitPerMinute = 5;
    try {
      for (let i = 0; i < 5; i += 1)
        assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
      const res = await org.api("GET", "/api/enterprise/keys");
      assert.equal(res.status, 429);
      assert.ok(res.headers.get("retry-after"));
      // a second key of the same org has its own per-key budget
      const extra = await stack.api("POST", "/api/enterprise/keys", {
        apiKey: other.apiKey,
        body: { scopes: ["read"] },
      });
      assert.equal(extra.status, 200);
      assert.equal(
        (await other.api("GET", "/api/enterprise/keys")).status,
        200,
        "other orgs are unaffected",
      );
    } finally {
      stack.ctx.config.apiKeyRateLimitPerMinute = saved;
    }
  });

  it("counts concurrent requests exactly (atomic upsert)", async () => {
    const org = await stack.registerOrg({ plan: "free" });
    const results = await Promise.all(
      Array.from({ length: 25 }, () => org.api("GET", "/api/enterprise/keys")),
    );
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429).length;
    assert.equal(ok, 10);
    assert.equal(limited, 15);
  });

  it("a burst in one process gets the whole limit, one share at a time (no cap on rounds)", async () => {
    // A limit of 10 leases one at a time: 50 requests at once wait on each lease together, and
    // each share goes to one of them. All 10 pass, then PostgreSQL's refusal ends the rest.
    const bucket = { key: `burst:${Date.now()}`, limit: 10, windowSeconds: 60 };
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => stack.ctx.rateLimiter.consume([bucket])),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 10);
    for (const r of results)
      if (r.status === "rejected") assert.equal((r.reason as Error).name, "RateLimitError");
  });

  it("a busy bucket's next share is leased ahead, before its requests run out (a small one's is not)", async () => {
    // Leases sent by requests that found their share used up (and waited for the statement)
    // and leases sent ahead of need, by a request its share still served. Counted by the
    // limiter itself: how fast PostgreSQL answers must not decide which is which.
    const limiter = stack.ctx.rateLimiter;
    const run = async (
      bucket: { key: string; limit: number; windowSeconds: number },
      n: number,
    ) => {
      const leasesBefore = limiter.leases;
      const aheadBefore = limiter.leasesAhead;
      for (let i = 0; i < n; i++) {
        await limiter.consume([bucket]);
        // Let a lease ahead land before the next request, as requests spaced in time would.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const ahead = limiter.leasesAhead - aheadBefore;
      return { ahead, waited: limiter.leases - leasesBefore - ahead };
    };
    const busy = await run({ key: `ahead:${Date.now()}`, limit: 100_000, windowSeconds: 60 }, 60);
    assert.ok(busy.ahead >= 2, `leased ahead ${busy.ahead} times`);
    // Shares of 1 and 2 are leased when used up; from 4 on the next comes ahead of need.
    assert.ok(busy.waited <= 4, `${busy.waited} of 60 requests waited for a lease`);
    // A limit of 40 a minute leases at most 2 at a time (a twentieth of it): never ahead, so each
    // share is leased by a request that waits for it.
    const small = await run({ key: `small:${Date.now()}`, limit: 40, windowSeconds: 60 }, 10);
    assert.equal(small.ahead, 0);
    assert.ok(small.waited >= 5, `${small.waited} of 10 requests waited for a lease`);
  });

  it("the first requests of a hundred buckets in one turn share one lease statement, and each gets its share", async () => {
    // After a quiet spell every share has gone back: a hundred organizations' first requests
    // arrive together. Each bucket's lease is its own row; the statement is one.
    const limiter = stack.ctx.rateLimiter;
    const stamp = Date.now();
    const buckets = Array.from({ length: 100 }, (_, i) => ({
      key: `cold:${stamp}:${i}`,
      limit: 3,
      windowSeconds: 60,
    }));
    const leasesBefore = limiter.leases;
    // Four requests per bucket, all at once: three pass (one share at a time), the fourth is
    // refused by PostgreSQL, as before.
    const results = await Promise.allSettled(
      buckets.flatMap((bucket) => Array.from({ length: 4 }, () => limiter.consume([bucket]))),
    );
    const leases = limiter.leases - leasesBefore;
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 300);
    for (const r of results)
      if (r.status === "rejected") assert.equal((r.reason as Error).name, "RateLimitError");
    // Rounds: the first share of every bucket, the second, the third, the refusal; one statement
    // each (a round's leases are asked for in one turn), not one per bucket (400).
    assert.ok(leases <= 8, `${leases} lease statements for 100 buckets`);
    const { rows } = await stack.database.pool.query<{ points: number }>(
      "SELECT points FROM rate_limits WHERE key LIKE $1",
      [`cold:${stamp}:%`],
    );
    assert.equal(rows.length, 100);
    for (const row of rows) assert.ok(row.points >= 3, `counter ${row.points}`);
  });

  describe("a key back after a quiet spell (its cache entry expired)", () => {
    /** Expires the key's cache entry and hands every share back, as a quiet spell would. */
    async function quietSpell(apiKey: string): Promise<void> {
      const hash = hashApiKey(apiKey);
      const principal = stack.ctx.apiKeys.get(hash);
      assert.ok(principal, "the key is cached after its first request");
      stack.ctx.apiKeys.remember(hash, principal, Date.now());
      await stack.ctx.rateLimiter.close();
    }

    it("its lease is taken on the expired entry's word, beside the look-up, and the request spends it", async () => {
      const org = await stack.registerOrg({ plan: "enterprise" });
      assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
      await quietSpell(org.apiKey);
      const limiter = stack.ctx.rateLimiter;
      const leases = limiter.leases;
      const prefetches = limiter.prefetches;
      assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
      assert.equal(limiter.prefetches - prefetches, 1, "the hint started a lease");
      // The request waited for that lease instead of sending one of its own after the look-up.
      assert.equal(limiter.leases - leases, 1, "one lease statement in all");
    });

    it("a hinted lease of a key revoked meanwhile goes back unused, and the request is 401", async () => {
      const org = await stack.registerOrg({ plan: "enterprise" });
      assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
      await quietSpell(org.apiKey);
      // Revoked by another process whose notification did not arrive: the entry is still here.
      await stack.database.pool.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [
        org.keyId,
      ]);
      const prefetches = stack.ctx.rateLimiter.prefetches;
      assertError(await org.api("GET", "/api/enterprise/keys"), 401, "Unauthorized");
      assert.equal(stack.ctx.rateLimiter.prefetches - prefetches, 1);
      // The failed look-up dropped the entry: the key's next requests hint nothing.
      await stack.ctx.rateLimiter.close();
      assertError(await org.api("GET", "/api/enterprise/keys"), 401, "Unauthorized");
      assert.equal(stack.ctx.rateLimiter.prefetches - prefetches, 1);
      await stack.ctx.rateLimiter.close();
      const { rows } = await stack.database.pool.query<{ key: string; points: number }>(
        "SELECT key, points FROM rate_limits WHERE key = ANY($1::text[])",
        [[`key:${org.keyId}:m`, `org:${org.orgId}:m`]],
      );
      // What the first request spent stays counted; the hinted share went back.
      assert.equal(rows.length, 2);
      for (const row of rows) assert.equal(row.points, 1, `${row.key}: ${row.points}`);
    });
  });

  it("a window that has passed starts again", async () => {
    const org = await stack.registerOrg({ plan: "free" });
    for (let i = 0; i < 10; i += 1) await org.api("GET", "/api/enterprise/keys");
    assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 429);
    // Age the minute windows instead of sleeping 60 s.
    await stack.database.pool.query(
      "UPDATE rate_limits SET expires_at = now() - interval '1 second' WHERE key LIKE '%:m'",
    );
    assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
  });

  it("the admin endpoint is not limited by plan", async () => {
    for (let i = 0; i < 12; i += 1) {
      const res = await stack.api("POST", "/api/enterprise/register", {
        adminToken: stack.adminToken,
        body: { orgName: `Bulk ${i}` },
      });
      assert.equal(res.status, 200);
    }
  });
});
