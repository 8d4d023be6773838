import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ChainProbe } from "../../support/chain-probe.js";
import { eventually } from "../../support/eventually.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "../writes/helpers.js";

const ASYNC = { Prefer: "respond-async" };

/**
 * Reorgs under a cancel and a deadline (issue 43; docs/transactions.md "Cancelling a sent
 * write"): a write ended `cancelled` or `expired` by its self-transfer, whose block a reorg then
 * drops (`anvil_reorg`: the block's transactions leave the chain and the pool), is reopened,
 * the same self-transfer's bytes are sent again, and the write ends in the chain's final state:
 * the row names the transaction the canonical chain holds for its nonce, nothing of the write
 * itself happened, and the wallet's nonce moved once. Real anvil with 1 s blocks, PostgreSQL,
 * the engine and the indexer.
 */
describe("a cancelled or expired write whose self-transfer a reorg drops (anvil 1 s blocks, anvil_reorg)", () => {
  let stack: WriteStack, chain: ChainProbe, org: TestOrg;
  before(async () => {
    stack = await startWriteStack({ blockTime: 1 });
    chain = new ChainProbe(stack.rpcUrl, stack.ctx.contracts.assetToken);
    org = await stack.registerOrg();
  });
  after(async () => {
    chain?.close();
    await stack?.stop();
  });

  /** Interval mining paused while `body` runs; one block mined at its end. */
  async function paused<T>(body: () => Promise<T>): Promise<T> {
    await chain.rpc("evm_setIntervalMining", [0]);
    try {
      return await body();
    } finally {
      await chain.rpc("anvil_mine", ["0x1"]);
      await chain.rpc("evm_setIntervalMining", [1]);
    }
  }

  /** Waits until the write's newest attempt is a self-transfer, in the pool; its hash. */
  async function selfTransferInPool(id: string): Promise<string> {
    const raced = await waitForStatus(
      org,
      id,
      (b) => (b.attempts as Array<{ hash: string }>).length >= 2,
      30_000,
    );
    const hash = (raced.attempts as Array<{ hash: string }>).at(-1)!.hash;
    for (let i = 0; i < 400; i++) {
      if ((await chain.rpc<unknown>("eth_getTransactionByHash", [hash])) !== null) return hash;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`the self-transfer ${hash} never reached the pool`);
  }

  /** Drops every block from the one holding `hash` to the head (interval mining paused). */
  async function reorgOut(hash: string): Promise<void> {
    const receipt = await chain.receipt(hash);
    assert.ok(receipt !== null, "mined before the reorg");
    await chain.rpc("evm_setIntervalMining", [0]);
    try {
      const depth = (await chain.blockNumber()) - Number(BigInt(receipt.blockNumber)) + 1;
      await chain.rpc("anvil_reorg", [depth, []]);
    } finally {
      await chain.rpc("evm_setIntervalMining", [1]);
    }
    assert.equal(await chain.receipt(hash), null, "reorged out");
  }

  /**
   * The write's final state is the chain's: it ended `state` with the self-transfer's receipt,
   * which the canonical chain holds in the block the row names; its original was never mined,
   * no token was minted, and the wallet's nonce moved once.
   */
  async function assertChainsFinal(
    id: string,
    state: "cancelled" | "expired",
    selfTransfer: string,
    original: string,
    before: { nonce: number; supply: bigint },
  ): Promise<void> {
    // Until the indexer has seen the reorg, the row still names the dropped block: wait for the
    // row and the chain to agree.
    await eventually(async () => {
      const done = (await org.api("GET", `/api/v1/transactions/${id}`)).body;
      assert.equal(done.status, state);
      const row = done.receipt as { hash: string; blockHash: string } | null;
      assert.equal(row?.hash, selfTransfer, "the same self-transfer, sent again");
      const onChain = await chain.receipt(selfTransfer);
      assert.ok(onChain !== null, "the self-transfer is on the canonical chain again");
      assert.equal(row.blockHash, onChain.blockHash, "the row names the canonical block");
    }, 30_000);
    assert.equal(await chain.receipt(original), null, "the write itself was never mined");
    assert.equal(await chain.totalSupply(), before.supply, "nothing minted");
    assert.deepEqual(await chain.nonces(org.walletAddress), {
      latest: before.nonce + 1,
      pending: before.nonce + 1,
    });
  }

  const snapshot = async () => ({
    nonce: (await chain.nonces(org.walletAddress)).latest,
    supply: await chain.totalSupply(),
  });

  it("a write cancelled by its self-transfer, reorged out: reopened, the self-transfer mined again, cancelled as the chain says", async () => {
    const before = await snapshot();
    const { id, cancelHash, original } = await paused(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      const sent = await waitForStatus(org, id, (b) => b.status === "sent");
      const original = (sent.attempts as Array<{ hash: string }>)[0]!.hash;
      const cancel = await org.api("POST", `/api/v1/transactions/${id}/cancel`);
      assert.equal(cancel.status, 202, cancel.text);
      return { id, cancelHash: await selfTransferInPool(id), original };
    });
    await waitForStatus(org, id, (b) => b.status === "cancelled", 30_000);
    await reorgOut(cancelHash);
    await assertChainsFinal(id, "cancelled", cancelHash, original, before);
    const next = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(next.status, 200, next.text);
  });

  it("a write expired by its deadline's self-transfer, reorged out: reopened, the self-transfer mined again, expired as the chain says", async () => {
    const before = await snapshot();
    const { id, deadlineHash, original } = await paused(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ validForSeconds: 2 }),
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      const sent = await waitForStatus(org, id, (b) => b.status === "sent");
      const original = (sent.attempts as Array<{ hash: string }>)[0]!.hash;
      return { id, deadlineHash: await selfTransferInPool(id), original };
    });
    await waitForStatus(org, id, (b) => b.status === "expired", 30_000);
    await reorgOut(deadlineHash);
    await assertChainsFinal(id, "expired", deadlineHash, original, before);
  });
});
