import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startAnvil } from "../../../deploy/local-chain.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "./helpers.js";

const ASYNC = { Prefer: "respond-async" };
const FREE_CHAIN =
  "Transaction already sent: on a chain without fees no replacement can outbid it, so it cannot be cancelled";

/**
 * Cancelling a sent write on a chain whose fees are zero (issue 43: "say so with 409 and a
 * reason, not a silent attempt"): a real anvil started with `--hardfork berlin --gas-price 0`
 * (no base fee, a gas price of 0), where the relayer sends at 0 and a replacement at 12.5% more
 * is still 0, so nothing can take a sent write's place in the pool. The write (and a batch) answers 409
 * with the reason and its `sent` state, nothing is asked of the engine, and the write is mined
 * as it would have been. A write not sent yet is still cancelled at once.
 */
describe("cancel on a free-gas chain (anvil --hardfork berlin --gas-price 0 + PostgreSQL + engine)", () => {
  let stack: WriteStack;
  let org: TestOrg;

  before(async () => {
    stack = await startWriteStack(
      {
        deploy: "fresh",
        startChain: (port) =>
          startAnvil({
            port,
            blockTime: 0,
            reuseExisting: false,
            // Legacy blocks and a gas price of 0: `eth_gasPrice` answers 0, so the relayer prices
            // every transaction at 0 (anvil's London chain with `--base-fee 0` still suggests a
            // 1 gwei tip, which a cancel could outbid).
            extraArgs: ["--hardfork", "berlin", "--gas-price", "0"],
          }),
      },
      { sequencer: { maxInFlightPerOrg: 1 } },
    );
    org = await stack.registerOrg();
  });

  after(async () => {
    await stack?.stop();
  });

  const cancel = (id: string) => org.api("POST", `/api/v1/transactions/${id}/cancel`);
  const asked = async (id: string) =>
    (
      await stack.ctx.database.pool.query<{ asked: boolean; n: number }>(
        `SELECT bool_or(cancel_requested_at IS NOT NULL) AS asked, count(*)::int AS n
           FROM transactions WHERE id = $1 OR parent_id = $1`,
        [id],
      )
    ).rows[0]!;

  it("the chain is free: GET /api/v1/status says so and a write's fee is 0", async () => {
    const status = await org.api("GET", "/api/v1/status");
    assert.equal(status.status, 200, status.text);
    assert.equal(
      (status.body.feeModel as { source: string } | undefined)?.source,
      "free",
      JSON.stringify(status.body.feeModel),
    );
  });

  it("a sent write answers 409 with the reason and its state; nothing is asked, and it is mined as it was", async () => {
    const { id, queued } = await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      const second = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: ASYNC,
      });
      assert.equal(second.status, 202, second.text);
      const queued = second.body.transactionId as string;
      try {
        const sent = await waitForStatus(org, id, (b) => b.status === "sent");
        assert.equal((sent.attempts as Array<{ maxFeePerGas: string }>)[0]!.maxFeePerGas, "0");
        const res = await cancel(id);
        assert.deepEqual([res.status, res.body], [409, { error: FREE_CHAIN, status: "sent" }]);
        assert.equal((await asked(id)).asked, false, "nothing asked of the engine");
        // Behind it (one write in flight), the second is not sent yet: cancelled at once.
        const unsent = await cancel(queued);
        assert.deepEqual([unsent.status, unsent.body.status], [200, "cancelled"]);
        return { id, queued };
      } finally {
        await stack.rpc("evm_mine");
      }
    });
    const done = await waitForStatus(org, id, (b) => b.status === "confirmed");
    assert.equal((done.attempts as unknown[]).length, 1, "no self-transfer was ever sent");
    assert.equal((await org.api("GET", `/api/v1/transactions/${queued}`)).body.status, "cancelled");
  });

  it("a sent batch answers the same 409, its items untouched, and is mined", async () => {
    const id = await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/batch-issue", {
        body: { assets: [assetBody(), assetBody()] },
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      try {
        await waitForStatus(org, id, (b) => b.status === "sent");
        const refused = await cancel(id);
        assert.deepEqual(
          [refused.status, refused.body],
          [409, { error: FREE_CHAIN, status: "sent" }],
        );
        assert.deepEqual(await asked(id), { asked: false, n: 3 });
        return id;
      } finally {
        await stack.rpc("evm_mine");
      }
    });
    const done = await waitForStatus(org, id, (b) => b.status === "confirmed");
    assert.equal((done.result as { issued: number }).issued, 2);
  });
});
