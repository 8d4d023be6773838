import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { probeNode } from "../../../relayer/src/chain/rpc/node-dialect.js";
import { RpcClient } from "../../../relayer/src/chain/rpc/rpc-client.js";
import { startDialectProxy, type DialectProxyOptions } from "../../support/dialect-proxy.js";

describe("probeNode on anvil at each hardfork", () => {
  const chains: AnvilHandle[] = [];
  after(async () => {
    for (const chain of chains) await chain.stop();
  });
  const anvil = async (hardfork: string) => {
    const chain = await startAnvil({ port: await findFreePort(), blockTime: 0, hardfork });
    chains.push(chain);
    return chain;
  };

  const expectations = [
    { hardfork: "berlin", level: "berlin", push0: "no", cancun: "no", baseFee: false },
    { hardfork: "london", level: "london", push0: "no", cancun: "no", baseFee: true },
    { hardfork: "shanghai", level: "shanghai", push0: "yes", cancun: "no", baseFee: true },
    { hardfork: "cancun", level: "cancun", push0: "yes", cancun: "yes", baseFee: true },
  ] as const;
  for (const e of expectations) {
    it(`anvil --hardfork ${e.hardfork}: EVM level ${e.level}, base fee ${e.baseFee ? "yes" : "no"}, batches, block receipts, a dev node`, async () => {
      const dialect = await probeNode(new RpcClient((await anvil(e.hardfork)).rpcUrl));
      assert.equal(dialect.chainId, 1236);
      assert.match(dialect.client ?? "", /^anvil\//);
      assert.deepEqual(dialect.evm, {
        level: e.level,
        push0: e.push0,
        mcopy: e.cancun,
        transientStorage: e.cancun,
        baseFee: e.baseFee,
      });
      assert.equal(dialect.fees.baseFeePerGas === null, !e.baseFee);
      assert.deepEqual(dialect.batches, { support: "yes", cap: undefined, tried: 100 });
      assert.equal(dialect.blockReceipts, "yes");
      assert.equal(dialect.finality.consensus, "dev");
      assert.equal(dialect.finality.instantFinality, true);
      if (e.push0 === "no")
        assert.ok(dialect.notes.some((n) => n.startsWith("PUSH0 failed where the control ran")));
    });
  }
});

describe("probeNode behind a proxy imitating other nodes", () => {
  let chain: AnvilHandle;
  const proxies: Array<{ close(): Promise<void> }> = [];
  const probe = async (options: DialectProxyOptions, maxBatch?: number) => {
    const proxy = await startDialectProxy(chain.rpcUrl, options);
    proxies.push(proxy);
    return probeNode(new RpcClient(proxy.url, maxBatch === undefined ? {} : { maxBatch }));
  };
  before(async () => {
    chain = await startAnvil({ port: await findFreePort(), blockTime: 0 });
  });
  after(async () => {
    for (const proxy of proxies) await proxy.close();
    await chain?.stop();
  });

  it("a node that refuses batches: batches no, and everything else still probed through single calls", async () => {
    const dialect = await probe({ refuseBatches: "http-400" });
    assert.deepEqual(dialect.batches, { support: "no", cap: undefined, tried: 2 });
    assert.equal(dialect.evm.level, "cancun");
    assert.equal(dialect.blockReceipts, "yes");
  });

  it("a node with a batch size cap: the cap is found", async () => {
    const dialect = await probe({ maxBatch: 10 });
    assert.deepEqual(dialect.batches, { support: "yes", cap: 10, tried: 100 });
  });

  it("a node without eth_getBlockReceipts, eth_feeHistory or eth_maxPriorityFeePerGas (-32601): each 'no'", async () => {
    const dialect = await probe({
      missingMethods: ["eth_getBlockReceipts", "eth_feeHistory", "eth_maxPriorityFeePerGas"],
    });
    assert.equal(dialect.blockReceipts, "no");
    assert.equal(dialect.fees.feeHistory, "no");
    assert.equal(dialect.fees.maxPriorityFeePerGas, "no");
  });

  it("a method that answers another error is 'unknown', with the node's words in the notes", async () => {
    // geth answers receipt look-ups so for a while after a restart.
    const indexing = { code: -32000, message: "transaction indexing is in progress" };
    const dialect = await probe({ errors: { eth_getBlockReceipts: indexing } });
    assert.equal(dialect.blockReceipts, "unknown");
    assert.ok(dialect.notes.some((n) => n.includes("transaction indexing is in progress")));
  });

  it("a Clique geth (clique_getSigners answers): several confirmations advised", async () => {
    const dialect = await probe({
      results: {
        web3_clientVersion: "Geth/v1.13.15-stable/linux-amd64/go1.22.1",
        clique_getSigners: ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"],
      },
    });
    assert.equal(dialect.finality.consensus, "clique");
    assert.equal(dialect.finality.instantFinality, false);
  });

  it("a Besu QBFT node (qbft_getValidatorsByBlockNumber answers): immediate finality", async () => {
    const dialect = await probe({
      results: {
        web3_clientVersion: "besu/v24.9.1/linux-x86_64/openjdk-java-21",
        qbft_getValidatorsByBlockNumber: ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"],
      },
    });
    assert.equal(dialect.finality.consensus, "ibft/qbft");
    assert.equal(dialect.finality.instantFinality, true);
  });

  it("an unreachable node rejects (the probe never reports a guess)", async () => {
    const rpc = new RpcClient(`http://127.0.0.1:${await findFreePort()}`, { timeoutMs: 1_000 });
    await assert.rejects(probeNode(rpc));
  });
});
