import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { ChainProbe } from "../../support/chain-probe.js";
import type { RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import { eventually } from "../../support/eventually.js";
import { indexingInProgress } from "../../support/rpc-fault-rules.js";
import { waitForStatus, type WriteStack } from "../writes/helpers.js";
import { startProxiedWriteStack, type ProxiedWriteStack } from "./proxied-stack.js";
import { issueAsync, waitForAnswers } from "./write-outcomes.js";

/**
 * Cancels of sent writes (docs/transactions.md "Cancelling a sent write") while the node's
 * answers are lost or wrong: broadcast answers dropped after the node got them, and receipt
 * look-ups answering "transaction indexing is in progress". Whichever of a write's two
 * transactions is mined, a cancel never mints a second time and never loses the write.
 */
describe("cancels under the fault proxy (anvil 1 s blocks)", () => {
  let proxied: ProxiedWriteStack, stack: WriteStack, proxy: RpcFaultProxy, chain: ChainProbe;
  before(async () => {
    proxied = await startProxiedWriteStack([{}], { blockTime: 1 });
    ({ stack, chain } = proxied);
    proxy = proxied.proxies[0]!;
  });
  after(() => proxied?.stop());
  afterEach(() => proxy.clearRules());

  it("6 sent writes each cancelled, with lost broadcast answers and failing receipts: each ends cancelled (no token) or confirmed (one token), and the wallet's nonce moved once per write", async () => {
    const org = await stack.registerOrg();
    const supplyBefore = await chain.totalSupply();
    const startNonce = await stack.provider.getTransactionCount(org.walletAddress, "latest");
    const lost = proxy.addRule({
      method: "eth_sendRawTransaction",
      action: { kind: "forward-then-drop" },
    });
    await chain.rpc("evm_setIntervalMining", [0]);
    let ids: string[] = [];
    try {
      ids = await issueAsync(org.api, 6, "Cancel under faults");
      // Every broadcast answer is lost: each costs the relayer its RPC timeout (10 s) before it
      // looks for the transaction itself, so on a busy machine this takes well over 30 s.
      for (const id of ids) await waitForStatus(org, id, (b) => b.status === "sent", 120_000);
      proxy.resetCounts();
      for (const id of ids) {
        const res = await org.api("POST", `/api/v1/transactions/${id}/cancel`);
        assert.equal(res.status, 202, res.text);
      }
      // Each cancel's broadcast answer is lost too. The cancels a step finds are recorded in one
      // statement and broadcast side by side, so their lost answers cost one RPC timeout (10 s)
      // together, not one each.
      for (const id of ids)
        await waitForStatus(org, id, (b) => (b.attempts as unknown[]).length >= 2, 120_000);
      await eventually(() => {
        assert.ok(
          proxy.counts().peakHanging >= 2,
          "cancels' broadcasts were in flight together (one after the other, at most one hangs)",
        );
        return Promise.resolve();
      }, 30_000);
      proxy.addRule({
        method: ["eth_getTransactionReceipt", "eth_getBlockReceipts"],
        action: indexingInProgress(),
        forMs: 5_000,
      });
    } finally {
      await chain.rpc("evm_setIntervalMining", [1]);
    }
    const statuses = await waitForAnswers(org.api, ids, 180_000);
    assert.ok(lost.hits > 0, "broadcast answers were lost");
    const ends = statuses.map((s) => s.status);
    assert.ok(
      ends.every((s) => s === "cancelled" || s === "confirmed"),
      `every write ended cancelled or confirmed: ${ends.join(", ")}`,
    );
    const confirmed = statuses.filter((s) => s.status === "confirmed");
    assert.equal(
      (await chain.totalSupply()) - supplyBefore,
      BigInt(confirmed.length),
      "one token per confirmed write, none per cancelled one",
    );
    for (const s of statuses) {
      const other = s.hashes.filter((h) => h !== s.receipt?.hash);
      for (const hash of other)
        assert.equal(
          await stack.provider.getTransactionReceipt(hash),
          null,
          `${s.transactionId}: only the attempt its row names was mined`,
        );
    }
    assert.equal(
      await stack.provider.getTransactionCount(org.walletAddress, "latest"),
      startNonce + 6,
      "one nonce per write, none lost, none twice",
    );
  });
});
