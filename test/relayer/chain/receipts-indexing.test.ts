import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { indexingInProgress, type RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import type { ChainProbe } from "../../support/chain-probe.js";
import type { WriteStack } from "../writes/helpers.js";
import { startProxiedWriteStack, type ProxiedWriteStack } from "./proxied-stack.js";
import { issueAsync, oneTokenPerWrite, tallyIssues, waitForAnswers } from "./write-outcomes.js";

describe("receipts unavailable: geth's 'transaction indexing is in progress' (anvil 1 s blocks, fault proxy)", () => {
  let proxied: ProxiedWriteStack, stack: WriteStack, proxy: RpcFaultProxy, chain: ChainProbe;
  before(async () => {
    proxied = await startProxiedWriteStack([{}], { blockTime: 1 });
    ({ stack, chain } = proxied);
    proxy = proxied.proxies[0]!;
  });
  after(() => proxied?.stop());

  it("20 async issue-asset writes mined while every receipt look-up fails for 10 s: exactly 20 tokens, every write confirmed", async () => {
    const org = await stack.registerOrg();
    const supplyBefore = await chain.totalSupply();
    const rule = proxy.addRule({
      method: ["eth_getTransactionReceipt", "eth_getBlockReceipts"],
      action: indexingInProgress(),
      forMs: 10_000,
    });
    const ids = await issueAsync(org.api, 20, "Indexing");

    // The writes reach the chain while no receipt can be read, and the relayer has asked for
    // receipts (the chain may mine them a moment before the relayer reads that block).
    const minedDuringOutage = async () => (await chain.nonces(org.walletAddress)).latest;
    while (rule.active && ((await minedDuringOutage()) < 10 || rule.hits === 0))
      await new Promise((r) => setTimeout(r, 200));
    assert.ok(rule.hits > 0, "the relayer asked for receipts during the outage");

    const statuses = await waitForAnswers(org.api, ids, 60_000);
    assert.deepEqual(
      await tallyIssues(chain, org.walletAddress, statuses, supplyBefore),
      oneTokenPerWrite(20),
    );
  });
});
