import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ChainProbe } from "../../support/chain-probe.js";
import { gatewayError, type RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import type { WriteStack } from "../writes/helpers.js";
import { startProxiedWriteStack, type ProxiedWriteStack } from "./proxied-stack.js";
import { issueAsync, oneTokenPerWrite, tallyIssues, waitForAnswers } from "./write-outcomes.js";

/** How far the second endpoint is behind the head. */
const LAG_BLOCKS = 5;
/** The current endpoint answers HTTP 503 to every n-th request, so the client fails over. */
const CURRENT_FAILS_EVERY = 5;

/**
 * `RPC_URL` lists a current endpoint and one `LAG_BLOCKS` behind (its head, receipts, nonces
 * and blocks as of head − 5: `rpc-lag-view.ts`). The current one fails now and then, so the
 * client's calls land on either, in any order: a nonce from one, a receipt from the other.
 */
describe(`failover between a current endpoint and one ${LAG_BLOCKS} blocks behind (anvil 1 s blocks)`, () => {
  let proxied: ProxiedWriteStack, stack: WriteStack, chain: ChainProbe;
  let current: RpcFaultProxy, lagging: RpcFaultProxy;
  before(async () => {
    proxied = await startProxiedWriteStack([{}, { lagBlocks: LAG_BLOCKS }], { blockTime: 1 });
    ({ stack, chain } = proxied);
    [current, lagging] = proxied.proxies as [RpcFaultProxy, RpcFaultProxy];
  });
  after(() => proxied?.stop());

  it("20 async issue-asset writes while the current endpoint fails every few calls: exactly 20 tokens, all confirmed", async () => {
    const org = await stack.registerOrg();
    const supplyBefore = await chain.totalSupply();
    lagging.resetCounts();
    const failing = current.addRule({
      method: "*",
      action: gatewayError(503),
      every: CURRENT_FAILS_EVERY,
    });
    const ids = await issueAsync(org.api, 20, "Failover");
    const statuses = await waitForAnswers(org.api, ids, 60_000);
    failing.remove();

    assert.ok(failing.hits > 0, "the current endpoint failed some calls");
    const served = Object.values(lagging.counts().received).reduce((a, b) => a + b, 0);
    assert.ok(served > 0, "the lagging endpoint served calls");
    assert.deepEqual(
      await tallyIssues(chain, org.walletAddress, statuses, supplyBefore),
      oneTokenPerWrite(20),
    );
  });
});
