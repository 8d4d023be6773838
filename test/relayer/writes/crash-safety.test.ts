import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import { assetBody } from "./helpers.js";
import { useChildRelayers } from "./relayer-child-process.js";

async function issue(baseUrl: string, apiKey: string, i: number): Promise<Response> {
  return fetch(`${baseUrl}/api/v1/write/issue-asset`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": apiKey,
      "idempotency-key": `crash-${i}`,
    },
    body: JSON.stringify(assetBody({ name: `Crash ${i}` })),
  });
}

describe("crash safety (relayer child process, anvil 1 s blocks)", () => {
  const relayers = useChildRelayers();

  it("30 idempotent issuances survive a SIGKILL mid-way: exactly 30 tokens, one per request, no stuck nonce", async () => {
    const { stack } = relayers;
    const org = await stack.registerOrg();
    const first = await relayers.start();
    const inFlight = Array.from({ length: 30 }, (_, i) =>
      issue(first.baseUrl, org.apiKey, i).catch(() => undefined),
    );
    // Kill once some writes are recorded (on a loaded machine that can take a while).
    for (let i = 0; i < 200; i++) {
      const { rows } = await stack.database.pool.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM transactions",
      );
      if (Number(rows[0]!.n) >= 5) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill("SIGKILL");
    await Promise.all(inFlight);
    const rows = await stack.database.pool.query<{ state: string; n: string }>(
      "SELECT state, count(*)::text AS n FROM transactions GROUP BY state",
    );
    const byState = Object.fromEntries(rows.rows.map((r) => [r.state, Number(r.n)]));
    // The kill really happened mid-way: some work was recorded and not finished.
    assert.ok((byState.queued ?? 0) + (byState.sent ?? 0) > 0, JSON.stringify(byState));

    const second = await relayers.start();
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => issue(second.baseUrl, org.apiKey, i)),
    );
    const bodies = await Promise.all(replies.map((r) => r.json() as Promise<{ tokenId?: string }>));
    if (replies.some((r) => r.status !== 200)) {
      const live = await stack.database.pool.query(
        "SELECT id, state, nonce, last_error, jsonb_array_length(attempts) AS attempts, now() AS now FROM transactions WHERE state IN ('queued','sent') ORDER BY created_at",
      );
      const wallet = await stack.database.pool.query(
        "SELECT next_nonce, lease_owner, lease_until FROM wallets",
      );
      console.error(JSON.stringify({ live: live.rows, wallet: wallet.rows }, null, 1));
    }
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(30).fill(200),
      JSON.stringify(bodies.filter((b) => !b.tokenId)),
    );
    const ids = new Set(bodies.map((b) => b.tokenId));
    assert.equal(ids.size, 30);

    const token = AssetToken__factory.connect(stack.ctx.contracts.assetToken, stack.ctx.provider);
    assert.equal(await token.getFunction("totalSupply")(), 30n);
    const latest = await stack.ctx.provider.send("eth_getTransactionCount", [
      org.walletAddress,
      "latest",
    ]);
    const pending = await stack.ctx.provider.send("eth_getTransactionCount", [
      org.walletAddress,
      "pending",
    ]);
    assert.equal(latest, pending, "no transaction left pending");

    const next = await fetch(`${second.baseUrl}/api/v1/write/issue-asset`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": org.apiKey },
      body: JSON.stringify(assetBody({ name: "After crash" })),
    });
    assert.equal(next.status, 200);
    assert.equal(await token.getFunction("totalSupply")(), 31n);
  });
});
