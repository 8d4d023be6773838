import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Wallet } from "ethers";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import { RpcClient } from "../../../relayer/src/chain/rpc/rpc-client.js";
import { RpcClientProvider } from "../../../relayer/src/chain/rpc/rpc-provider.js";
import { isAnswerLost, RpcAnswerLostError } from "../../../relayer/src/chain/rpc/rpc-errors.js";
import { startDialectProxy, type DialectProxyOptions } from "../../support/dialect-proxy.js";
import { eventually } from "../../support/eventually.js";

const FIVE_CALLS = [
  { method: "eth_chainId", params: [] },
  { method: "eth_blockNumber", params: [] },
  { method: "net_version", params: [] },
  { method: "eth_chainId", params: [] },
  { method: "web3_clientVersion", params: [] },
];

describe("RpcClient batches against anvil behind a proxy that speaks other nodes' dialects", () => {
  let chain: AnvilHandle;
  const proxies: Array<{ close(): Promise<void> }> = [];
  const proxy = async (options: DialectProxyOptions) => {
    const started = await startDialectProxy(chain.rpcUrl, options);
    proxies.push(started);
    return started;
  };

  before(async () => {
    chain = await startAnvil({ port: await findFreePort(), blockTime: 0 });
  });
  after(async () => {
    for (const p of proxies) await p.close();
    await chain?.stop();
  });

  const refusals: Array<[string, DialectProxyOptions["refuseBatches"]]> = [
    ["a plain-text HTTP 400", "http-400"],
    ["one JSON-RPC error object instead of an array", "error-object"],
    ["geth's one-element 'batch too large' array", "geth-too-large"],
  ];
  for (const [title, refuseBatches] of refusals) {
    it(`a batch refused with ${title} is answered by single calls, and the refusal is remembered`, async () => {
      const node = await proxy({ refuseBatches });
      const rpc = new RpcClient(node.url);
      const answers = await rpc.batch(FIVE_CALLS);
      assert.equal(answers[0], "0x4d4");
      assert.match(String(answers[1]), /^0x[0-9a-f]+$/);
      assert.equal(answers[2], "1236");
      assert.equal(answers[3], "0x4d4");
      assert.match(String(answers[4]), /^anvil/);
      // The batch, then a batch of two (a refusal of batches, or a size cap?), then single calls.
      assert.deepEqual(node.batches, [5, 2]);
      assert.equal(rpc.endpoints[0]!.batches, "refused");

      await rpc.batch(FIVE_CALLS.slice(0, 3));
      assert.deepEqual(node.batches, [5, 2], "no batch tried again while the refusal is fresh");
    });
  }

  it("a batch larger than maxBatch goes in chunks of maxBatch", async () => {
    const node = await proxy({});
    const rpc = new RpcClient(node.url, { maxBatch: 2 });
    const answers = await rpc.batch(FIVE_CALLS);
    assert.equal(answers.length, 5);
    assert.equal(answers[3], "0x4d4");
    // 2 + 2 in batches, the fifth alone (a batch of one is a plain call).
    assert.deepEqual(node.batches, [2, 2]);
    assert.equal(rpc.endpoints[0]!.batches, "yes");
  });

  it("a node's batch size cap is found by halving, then batches fit under it", async () => {
    const node = await proxy({ maxBatch: 3 });
    const rpc = new RpcClient(node.url);
    const calls = Array.from({ length: 10 }, () => ({ method: "eth_chainId", params: [] }));
    const first = await rpc.batch(calls);
    assert.deepEqual(first, Array(10).fill("0x4d4"));
    const cap = rpc.endpoints[0]!.batchCap;
    assert.ok(cap !== undefined && cap <= 3, `learned cap ${cap}`);
    assert.equal(rpc.endpoints[0]!.batches, "yes", "a cap is not a refusal of batches");

    const before = node.batches.length;
    const second = await rpc.batch(calls);
    assert.deepEqual(second, Array(10).fill("0x4d4"));
    assert.ok(
      node.batches.slice(before).every((size) => size <= 3),
      `sizes after learning: ${node.batches.slice(before).join(",")}`,
    );
  });

  it("a batch entry left unanswered is an RpcAnswerLostError (isAnswerLost), not a refusal", async () => {
    const node = await proxy({ dropFromBatches: ["eth_blockNumber"] });
    const rpc = new RpcClient(node.url);
    const [chainId, head] = await rpc.batch(FIVE_CALLS.slice(0, 2));
    assert.equal(chainId, "0x4d4");
    assert.ok(head instanceof RpcAnswerLostError);
    assert.equal(isAnswerLost(head), true);
    assert.equal(isAnswerLost(new Error("eth_blockNumber: missing")), false);
    assert.equal(rpc.endpoints[0]!.batches, "yes");
    assert.deepEqual(node.batches, [2], "not sent again as single calls");
  });

  it("a refusal is checked again after batchRecheckMs, so a node that starts taking batches gets them", async () => {
    const options: DialectProxyOptions = { refuseBatches: "error-object" };
    const node = await proxy(options);
    const rpc = new RpcClient(node.url, { batchRecheckMs: 50 });
    await rpc.batch(FIVE_CALLS.slice(0, 2));
    assert.equal(rpc.endpoints[0]!.batches, "refused");
    delete options.refuseBatches;
    await new Promise((resolve) => setTimeout(resolve, 80));
    await rpc.batch(FIVE_CALLS.slice(0, 2));
    assert.equal(rpc.endpoints[0]!.batches, "yes");
    assert.deepEqual(node.batches, [2, 2]);
  });

  it("broadcasts batched to a node that refuses batches all arrive (one after the other, in nonce order)", async () => {
    const node = await proxy({ refuseBatches: "http-400" });
    const rpc = new RpcClient(node.url);
    const wallet = new Wallet(ANVIL_DEV_PRIVATE_KEY);
    const nonce = Number(
      BigInt(await rpc.call<string>("eth_getTransactionCount", [wallet.address, "pending"])),
    );
    const raws = await Promise.all(
      [0, 1, 2].map((i) =>
        wallet.signTransaction({
          type: 2,
          chainId: 1236,
          nonce: nonce + i,
          to: wallet.address,
          value: 1n,
          gasLimit: 21_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
        }),
      ),
    );
    const hashes = await rpc.batch(
      raws.map((raw) => ({ method: "eth_sendRawTransaction", params: [raw] })),
    );
    for (const hash of hashes) assert.match(String(hash), /^0x[0-9a-f]{64}$/);
    // Automine mines after the node has answered the broadcast: on a busy machine the block may
    // come a moment after the last hash.
    await eventually(
      async () => {
        const after = BigInt(
          await rpc.call<string>("eth_getTransactionCount", [wallet.address, "latest"]),
        );
        assert.equal(after, BigInt(nonce + 3));
      },
      5_000,
      50,
    );
  });

  it("the ethers provider over the client (npm run deploy's path) works when batches are refused", async () => {
    const node = await proxy({ refuseBatches: "geth-too-large" });
    const provider = new RpcClientProvider(new RpcClient(node.url), 1236, {
      pollingIntervalMs: 100,
    });
    try {
      const wallet = new Wallet(ANVIL_DEV_PRIVATE_KEY, provider);
      // Concurrent requests: ethers gathers them into one batch.
      const [balance, head, count] = await Promise.all([
        provider.getBalance(wallet.address),
        provider.getBlockNumber(),
        provider.getTransactionCount(wallet.address),
      ]);
      assert.ok(balance > 0n && head >= 0 && count >= 0);
      assert.ok(node.batches.length >= 1, "ethers sent a batch");
      const tx = await wallet.sendTransaction({ to: wallet.address, value: 1n });
      const receipt = await tx.wait();
      assert.equal(receipt?.status, 1);
    } finally {
      provider.destroy();
    }
  });
});
