import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ChainProbe } from "../../support/chain-probe.js";
import {
  indexingInProgress,
  startRpcFaultProxy,
  type RpcFaultProxy,
} from "../../support/rpc-fault-proxy.js";
import { useChildRelayers } from "../writes/relayer-child-process.js";
import {
  issueAsync,
  oneTokenPerWrite,
  orgApi,
  tallyIssues,
  waitForAnswers,
} from "./write-outcomes.js";

describe("SIGKILL and restart while receipts fail (relayer child process behind a fault proxy, anvil 1 s blocks)", () => {
  const relayers = useChildRelayers();
  let proxy: RpcFaultProxy, chain: ChainProbe;
  before(async () => {
    const { stack } = relayers;
    proxy = await startRpcFaultProxy({ target: stack.rpcUrl });
    chain = new ChainProbe(stack.rpcUrl, stack.ctx.contracts.assetToken);
  });
  after(async () => {
    await proxy?.close();
    chain?.close();
  });

  it("20 async writes, the relayer killed with some mined and some in flight, the restarted one finds every receipt look-up failing for 15 s: exactly 20 tokens, all confirmed", async () => {
    const { stack } = relayers;
    const org = await stack.registerOrg();
    const supplyBefore = await chain.totalSupply();
    const first = await relayers.start(proxy.url);
    const ids = await issueAsync(orgApi(first.baseUrl, org.apiKey), 20, "Crash");

    // Kill once some writes are mined and some are not.
    const deadline = Date.now() + 30_000;
    while ((await chain.nonces(org.walletAddress)).latest < 5 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    proxy.addRule({
      method: ["eth_getTransactionReceipt", "eth_getBlockReceipts"],
      action: indexingInProgress(),
      forMs: 15_000,
    });
    first.child.kill("SIGKILL");
    const mined = (await chain.nonces(org.walletAddress)).latest;
    assert.ok(mined >= 5 && mined < 20, `killed with ${mined} of 20 writes mined`);
    const { rows } = await stack.database.pool.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM transactions WHERE state IN ('queued', 'sent')",
    );
    assert.ok(Number(rows[0]!.n) > 0, "the kill left writes unfinished");

    const second = await relayers.start(proxy.url);
    const statuses = await waitForAnswers(orgApi(second.baseUrl, org.apiKey), ids, 60_000);
    assert.deepEqual(
      await tallyIssues(chain, org.walletAddress, statuses, supplyBefore),
      oneTokenPerWrite(20),
    );
  });
});
