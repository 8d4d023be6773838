import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { ChainProbe } from "../../support/chain-probe.js";
import type { RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import type { WriteStack } from "../writes/helpers.js";
import { startProxiedWriteStack, type ProxiedWriteStack } from "./proxied-stack.js";
import { issueAsync, oneTokenPerWrite, tallyIssues, waitForAnswers } from "./write-outcomes.js";

/**
 * The node receives a broadcast but its answer never reaches the relayer: the relayer cannot
 * know whether the transaction is in the pool. Whatever it does next, each write must make
 * exactly one token.
 */
describe("lost broadcast answers (anvil 1 s blocks, fault proxy)", () => {
  let proxied: ProxiedWriteStack, stack: WriteStack, proxy: RpcFaultProxy, chain: ChainProbe;
  before(async () => {
    proxied = await startProxiedWriteStack([{}], { blockTime: 1 });
    ({ stack, chain } = proxied);
    proxy = proxied.proxies[0]!;
  });
  after(() => proxied?.stop());
  afterEach(() => proxy.clearRules());

  it("broadcast answers missing from the batch answer (the node got them): 10 async writes make exactly 10 tokens, all confirmed", async () => {
    const org = await stack.registerOrg();
    const supplyBefore = await chain.totalSupply();
    const lost = proxy.addRule({
      method: "eth_sendRawTransaction",
      action: { kind: "forward-then-drop" },
      where: "batch",
    });
    const ids = await issueAsync(org.api, 10, "Lost in batch");
    const statuses = await waitForAnswers(org.api, ids, 45_000);
    assert.ok(lost.hits > 0, "at least one broadcast went out in a batch and lost its answer");
    assert.deepEqual(
      await tallyIssues(chain, org.walletAddress, statuses, supplyBefore),
      oneTokenPerWrite(10),
    );
  });

  it("an answered broadcast is sent once: a first write of a freshly claimed wallet, left in the pool for 2 s, is broadcast exactly once and makes one token", async () => {
    const org = await stack.registerOrg();
    const supplyBefore = await chain.totalSupply();
    await chain.rpc("evm_setIntervalMining", [0]);
    let statuses;
    try {
      proxy.resetCounts();
      const ids = await issueAsync(org.api, 1, "Broadcast once");
      // Ten nonce checks (200 ms apart) pass while the transaction waits in the pool.
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(proxy.forwarded("eth_sendRawTransaction"), 1, "broadcasts of one write");
      await chain.rpc("evm_setIntervalMining", [1]);
      statuses = await waitForAnswers(org.api, ids, 45_000);
    } finally {
      await chain.rpc("evm_setIntervalMining", [1]);
    }
    assert.deepEqual(
      await tallyIssues(chain, org.walletAddress, statuses, supplyBefore),
      oneTokenPerWrite(1),
    );
  });

  for (const alone of ["hang", "close"] as const) {
    const how =
      alone === "hang"
        ? "no answer until the client times out"
        : "the connection closed without an answer";
    it(`a broadcast sent alone that the node got, ${how}: exactly one token, confirmed`, async () => {
      const org = await stack.registerOrg();
      const supplyBefore = await chain.totalSupply();
      const lost = proxy.addRule({
        method: "eth_sendRawTransaction",
        action: { kind: "forward-then-drop", alone },
        where: "single",
        times: 1,
      });
      const ids = await issueAsync(org.api, 1, `Lost alone (${alone})`);
      const statuses = await waitForAnswers(org.api, ids, 45_000);
      assert.equal(lost.hits, 1, "the broadcast went out alone and lost its answer");
      assert.deepEqual(
        await tallyIssues(chain, org.walletAddress, statuses, supplyBefore),
        oneTokenPerWrite(1),
      );
    });
  }
});
