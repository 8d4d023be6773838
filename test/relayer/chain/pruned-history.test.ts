import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import {
  assertHistoryAt,
  bodyPruned,
  EMPTY_TRANSACTIONS_ROOT,
  HistoryPrunedError,
} from "../../../relayer/src/chain/history.js";
import { RpcClient } from "../../../relayer/src/chain/rpc/rpc-client.js";

/**
 * A node that keeps only its recent blocks' transactions (the embedded anvil runs with
 * `--transaction-block-keeper`): an older block keeps its header, and its transactions come back
 * empty. What reads history (the chain reconciler after a restore, `npm run reindex`) must stop
 * with a clear error there rather than read nothing and go on (`chain/history.ts`).
 */
describe("pruned chain history (anvil --transaction-block-keeper 2)", () => {
  let anvil: AnvilHandle;
  let rpc: RpcClient;
  const mined: number[] = [];

  before(async () => {
    anvil = await startAnvil({
      port: await findFreePort(),
      blockTime: 0,
      reuseExisting: false,
      extraArgs: ["--transaction-block-keeper", "2"],
    });
    rpc = new RpcClient(anvil.rpcUrl);
    const [from] = await rpc.call<string[]>("eth_accounts", []);
    // Four blocks with one transaction each (automine), then one empty block.
    for (let i = 0; i < 4; i++) {
      const hash = await rpc.call<string>("eth_sendTransaction", [
        { from, to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", value: "0x1" },
      ]);
      // Automine: the receipt follows the send, on a busy machine a moment later.
      let receipt: { blockNumber: string } | null = null;
      for (let tries = 0; receipt === null && tries < 100; tries++) {
        receipt = await rpc.call<{ blockNumber: string } | null>("eth_getTransactionReceipt", [
          hash,
        ]);
        if (receipt === null) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(receipt !== null, `no receipt for ${hash}`);
      mined.push(Number(BigInt(receipt.blockNumber)));
    }
    await rpc.call("evm_mine", []);
  });
  after(async () => {
    await anvil?.stop();
  });

  it("an old block with transactions answers none, with its header's root; a recent one answers them", async () => {
    const old = await rpc.call<{ transactions: string[]; transactionsRoot: string }>(
      "eth_getBlockByNumber",
      [`0x${mined[0]!.toString(16)}`, false],
    );
    assert.deepEqual(old.transactions, []);
    assert.notEqual(old.transactionsRoot, EMPTY_TRANSACTIONS_ROOT);
    assert.equal(bodyPruned(old), true);
    const recent = await rpc.call<{ transactions: string[]; transactionsRoot: string }>(
      "eth_getBlockByNumber",
      [`0x${mined[3]!.toString(16)}`, false],
    );
    assert.equal(recent.transactions.length, 1);
    assert.equal(bodyPruned(recent), false);
  });

  it("assertHistoryAt refuses the pruned block with HistoryPrunedError and passes a kept one and an empty one", async () => {
    await assert.rejects(
      assertHistoryAt(rpc, mined[0]!, "rebuild the read model"),
      (error: unknown) =>
        error instanceof HistoryPrunedError &&
        error.blockNumber === mined[0] &&
        error.message ===
          `The chain node no longer holds the transactions of block ${mined[0]} (its history is pruned): ` +
            `cannot rebuild the read model. Point RPC_URL at a node that keeps the chain's full history.`,
    );
    await assertHistoryAt(rpc, mined[3]!, "rebuild the read model");
    await assertHistoryAt(rpc, mined[3]! + 1, "rebuild the read model"); // the empty block
  });
});
