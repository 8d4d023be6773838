import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toQuantity } from "ethers";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStackWithOrgs, waitForStatus, type WriteStack } from "./helpers.js";

/**
 * A backlog that drains on a fee market (issue 45): a sent write whose fee a rising base fee has
 * passed is re-priced at the next look, up to the fee cap it reserved, instead of after
 * `stuckAfterMs` (here 5 minutes, so only the base fee can trigger it). Real anvil with mining
 * paused and the next block's base fee set by hand; PostgreSQL; the engine.
 */
describe("a write priced out by a rising base fee is re-priced at once (anvil + PostgreSQL + engine)", () => {
  let stack: WriteStack;
  let org: TestOrg;

  before(async () => {
    [stack, org] = await startWriteStackWithOrgs(1, {}, { sequencer: { stuckAfterMs: 300_000 } });
  });
  after(() => stack?.stop());

  const rowOf = async (id: string) =>
    (
      await stack.ctx.database.pool.query<{
        fee_cap: string;
        attempts: Array<{ maxFeePerGas: string; nonce: number }>;
      }>("SELECT fee_cap, attempts FROM transactions WHERE id = $1", [id])
    ).rows[0]!;

  it("re-prices it up to its reserved cap within seconds, on the same nonce, and it is mined once", async () => {
    const supplyBefore = await stack.token.totalSupply();
    const id = await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Priced out" }),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      await waitForStatus(org, id, (b) => b.status === "sent");
      const sent = await rowOf(id);
      const fee = BigInt(sent.attempts[0]!.maxFeePerGas);
      const cap = BigInt(sent.fee_cap);
      assert.ok(cap >= fee * 2n - 1n, `the reserved cap (${cap}) is about twice the fee (${fee})`);
      // A block too dear for the write (its base fee 1.5× the write's fee), mined without it;
      // the next one's base fee (12.5% lower after an empty block) is still above the fee.
      await stack.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity((fee * 3n) / 2n)]);
      await stack.rpc("evm_mine");
      const nextBase = BigInt(
        (await stack.rpc<{ baseFeePerGas: string[] }>("eth_feeHistory", ["0x1", "latest", []]))
          .baseFeePerGas[1]!,
      );
      assert.ok(nextBase > fee, `the next base fee ${nextBase} passed the write's fee ${fee}`);
      const repriced = await waitForStatus(
        org,
        id,
        (b) => (b.hashes as string[]).length >= 2,
        30_000,
      );
      assert.equal(repriced.status, "sent");
      const after = await rowOf(id);
      const second = after.attempts[1]!;
      assert.equal(second.nonce, sent.attempts[0]!.nonce, "the same nonce");
      assert.ok(BigInt(second.maxFeePerGas) >= nextBase, "priced for the next block");
      assert.ok(BigInt(second.maxFeePerGas) <= cap, "never above the cap it reserved");
      await stack.rpc("evm_mine");
      return id;
    });
    await waitForStatus(org, id, (b) => b.status === "confirmed", 30_000);
    assert.equal((await stack.token.totalSupply()) - supplyBefore, 1n);
  });
});
