import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toBeHex } from "ethers";
import pg from "pg";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "./helpers.js";

// What a custodial service must never do: send a write twice, or answer a recorded write with an
// error that invites a blind retry (docs/transactions.md).

describe("write safety (anvil + PostgreSQL)", () => {
  let stack: WriteStack;

  // Re-price after 500 ms without a receipt (production: 15 s).
  before(async () => (stack = await startWriteStack({}, { sequencer: { stuckAfterMs: 500 } })));
  after(() => stack?.stop());

  const attemptsOf = async (id: string) =>
    (
      await stack.database.pool.query<{
        state: string;
        attempts: Array<{ hash: string; refused?: string }>;
      }>("SELECT state, attempts FROM transactions WHERE id = $1", [id])
    ).rows[0]!;
  async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("a refused fee bump leaves the write open; the first attempt is mined once and a retry with the same Idempotency-Key returns it", async () => {
    const org: TestOrg = await stack.registerOrg();
    const body = assetBody({ name: "Exactly once" });
    const headers = { "Idempotency-Key": "exactly-once-1" };
    await stack.automine(false);
    try {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body,
        headers: { ...headers, Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      const first = await until("the first broadcast", async () => {
        const row = await attemptsOf(id);
        return row.attempts[0];
      });
      const pending = await stack.rpc<{ gas: string; maxFeePerGas: string; value: string }>(
        "eth_getTransactionByHash",
        [first.hash],
      );
      // The wallet keeps exactly what the first attempt may cost: any replacement paying more per
      // gas is refused by the node for insufficient funds.
      const cost = BigInt(pending.value) + BigInt(pending.gas) * BigInt(pending.maxFeePerGas);
      await stack.rpc("anvil_setBalance", [org.walletAddress, toBeHex(cost)]);
      const refused = await until("a refused re-pricing", async () => {
        const row = await attemptsOf(id);
        return row.attempts.some((a) => a.refused !== undefined) ? row : undefined;
      });
      assert.equal(
        refused.state,
        "sent",
        "the write stays open while its first attempt may be mined",
      );
      assert.match(stack.logText(), /re-pricing refused; earlier attempts may still be mined/);

      await stack.automine(true);
      await stack.rpc("evm_mine");
      const done = await until("confirmation", async () => {
        const status = await org.api("GET", `/api/v1/transactions/${id}`);
        return status.body.status === "confirmed" ? status.body : undefined;
      });
      const receipt = done.receipt as { hash: string };
      assert.equal(receipt.hash, first.hash, "the first attempt is the one that was mined");
      assert.equal(await stack.token.getFunction("balanceOf")(org.walletAddress), 1n);

      const retry = await org.api("POST", "/api/v1/write/issue-asset", { body, headers });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.body.tokenId, (done.result as { tokenId: string }).tokenId);
      assert.equal(retry.headers.get("x-transaction-id"), id);
      assert.equal(
        await stack.token.getFunction("balanceOf")(org.walletAddress),
        1n,
        "minted once",
      );
    } finally {
      await stack.automine(true);
    }
  });

  it("with the database pool starved after the writes are recorded, every answer carries its transaction id, never a 503, and each write is minted once", async () => {
    const org = await stack.registerOrg();
    const before = await stack.token.getFunction("balanceOf")(org.walletAddress);
    const watcher = new pg.Client({ connectionString: stack.ctx.config.databaseUrl });
    await watcher.connect();
    const recorded = async () =>
      Number(
        (
          await watcher.query<{ n: string }>(
            "SELECT count(*)::text AS n FROM transactions WHERE org_id = $1",
            [org.orgId],
          )
        ).rows[0]!.n,
      );
    await stack.automine(false);
    const held: pg.PoolClient[] = [];
    try {
      const writes = Array.from({ length: 8 }, (_, i) =>
        org.api("POST", "/api/v1/write/issue-asset", { body: assetBody({ name: `Starved ${i}` }) }),
      );
      await until("8 recorded writes", async () => ((await recorded()) === 8 ? true : undefined));
      // Take every connection of the relayer's pool for longer than its 5 s connect timeout.
      const max = stack.database.pool.options.max ?? 10;
      for (let i = 0; i < max; i++) held.push(await stack.database.pool.connect());
      await stack.automine(true);
      await stack.rpc("evm_mine");
      await new Promise((r) => setTimeout(r, 6_000));
      for (const client of held.splice(0)) client.release();
      const answers = await Promise.all(writes);
      for (const answer of answers) {
        assert.ok([200, 202].includes(answer.status), `${answer.status} ${answer.text}`);
        assert.match(answer.headers.get("x-transaction-id") ?? "", /^tx_[0-9a-f]{24}$/);
      }
      const ids = answers.map((a) => a.headers.get("x-transaction-id"));
      assert.equal(new Set(ids).size, 8);
      // Every recorded write ends confirmed, once.
      await until("8 confirmed writes", async () => {
        const { rows } = await watcher.query<{ n: string }>(
          "SELECT count(*)::text AS n FROM transactions WHERE org_id = $1 AND state = 'confirmed'",
          [org.orgId],
        );
        return rows[0]!.n === "8" ? true : undefined;
      });
      assert.equal(await stack.token.getFunction("balanceOf")(org.walletAddress), before + 8n);
    } finally {
      for (const client of held) client.release();
      await stack.automine(true);
      await watcher.end();
    }
  });
});
