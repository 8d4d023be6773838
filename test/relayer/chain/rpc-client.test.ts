import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Wallet } from "ethers";
import { Registry } from "prom-client";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { RpcClient } from "../../../relayer/src/chain/rpc/rpc-client.js";
import { registerRpcMetrics } from "../../../relayer/src/chain/rpc/rpc-metrics.js";
import { RpcClientProvider } from "../../../relayer/src/chain/rpc/rpc-provider.js";
import {
  classifyRpcFailure,
  isAlreadyKnown,
  isInsufficientFunds,
  isNonceTooLow,
  isRevert,
  isUnderpriced,
} from "../../../relayer/src/chain/rpc/rpc-errors.js";
import { RpcUnavailableError } from "../../../relayer/src/errors.js";

// anvil's first dev account (public test key).
const DEV_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
// Init code that reverts with the 4 bytes 0xdeadbeef (a custom error without arguments).
const REVERTING_INIT_CODE = "0x63deadbeef60e01b60005260046000fd";

describe("RpcClient against a live anvil", () => {
  let chain: AnvilHandle;
  let deadUrl: string;

  before(async () => {
    chain = await startAnvil({ port: await findFreePort(), blockTime: 0 });
    deadUrl = `http://127.0.0.1:${await findFreePort()}`; // nothing listens there
  });
  after(async () => {
    await chain?.stop();
  });

  it("fails over to the next URL of RPC_URL when the first refuses connections, and says so per endpoint in /metrics", async () => {
    const rpc = new RpcClient(`${deadUrl}, ${chain.rpcUrl}`, { timeoutMs: 2_000 });
    const head = await rpc.call<string>("eth_blockNumber");
    assert.match(head, /^0x[0-9a-f]+$/);
    const [dead, live] = rpc.endpoints;
    assert.equal(dead!.up, false);
    assert.equal(dead!.failures, 1);
    assert.equal(live!.up, true);
    // The next call goes to the healthy endpoint first: no new failure on the dead one.
    await rpc.batch([
      { method: "eth_chainId", params: [] },
      { method: "eth_blockNumber", params: [] },
    ]);
    assert.equal(rpc.endpoints[0]!.failures, 1);

    await rpc.checkHealth();
    const registry = new Registry();
    registerRpcMetrics(registry, rpc);
    const text = await registry.metrics();
    const deadLabel = new URL(deadUrl).host;
    const liveLabel = new URL(chain.rpcUrl).host;
    assert.match(text, new RegExp(`rpc_endpoint_up\\{endpoint="${deadLabel}"\\} 0`));
    assert.match(text, new RegExp(`rpc_endpoint_up\\{endpoint="${liveLabel}"\\} 1`));
    assert.match(text, new RegExp(`rpc_endpoint_head_block\\{endpoint="${liveLabel}"\\} \\d+`));
  });

  it("counts the requests it sends per method in /metrics (rpc_calls_total), a batch's one by one", async () => {
    const rpc = new RpcClient(chain.rpcUrl);
    await rpc.call("eth_chainId");
    await rpc.batch([
      { method: "eth_blockNumber", params: [] },
      { method: "eth_blockNumber", params: [] },
      { method: "eth_chainId", params: [] },
    ]);
    assert.deepEqual(Object.fromEntries(rpc.sentByMethod), { eth_chainId: 2, eth_blockNumber: 2 });
    const registry = new Registry();
    registerRpcMetrics(registry, rpc);
    const text = await registry.metrics();
    assert.match(text, /^rpc_calls_total\{method="eth_chainId"\} 2$/m);
    assert.match(text, /^rpc_calls_total\{method="eth_blockNumber"\} 2$/m);
  });

  it("rejects with RpcUnavailableError when no endpoint answers", async () => {
    const rpc = new RpcClient([deadUrl], { timeoutMs: 1_000 });
    await assert.rejects(rpc.call("eth_blockNumber"), RpcUnavailableError);
  });

  it("anvil's refusals read as the named predicates (nonce too low, already known, underpriced, insufficient funds, revert)", async () => {
    const rpc = new RpcClient(chain.rpcUrl);
    const wallet = new Wallet(DEV_KEY);
    const fees = { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n };
    const base = { chainId: 1236, to: wallet.address, gasLimit: 21_000n, type: 2, ...fees };
    const send = (raw: string) => rpc.call<string>("eth_sendRawTransaction", [raw]);
    await rpc.call("evm_setAutomine", [false]);
    try {
      const nonce = Number(
        BigInt(await rpc.call<string>("eth_getTransactionCount", [wallet.address, "pending"])),
      );
      const first = await wallet.signTransaction({ ...base, nonce, value: 1n });
      await send(first);
      await assert.rejects(send(first), (e) => isAlreadyKnown(e));
      const sameFee = await wallet.signTransaction({ ...base, nonce, value: 2n });
      await assert.rejects(send(sameFee), (e) => isUnderpriced(e));
      await rpc.call("evm_mine");
      const reused = await wallet.signTransaction({ ...base, nonce, value: 3n });
      await assert.rejects(send(reused), (e) => isNonceTooLow(e));
      const pauper = await Wallet.createRandom().signTransaction({ ...base, nonce: 0, value: 1n });
      await assert.rejects(send(pauper), (e) => isInsufficientFunds(e));
    } finally {
      await rpc.call("evm_setAutomine", [true]);
    }
    await assert.rejects(
      rpc.call("eth_call", [{ data: REVERTING_INIT_CODE }, "latest"]),
      (e) => isRevert(e) && classifyRpcFailure(e) === "revert",
    );
  });

  it("ethers errors raised through the provider over the client read as the same predicates", async () => {
    const rpc = new RpcClient(chain.rpcUrl);
    const provider = new RpcClientProvider(rpc, 1236);
    try {
      await assert.rejects(provider.call({ data: REVERTING_INIT_CODE }), (e) => isRevert(e));
      const pauper = Wallet.createRandom().connect(provider);
      await assert.rejects(
        pauper.sendTransaction({ to: pauper.address, value: 1n, gasLimit: 21_000n }),
        (e) => isInsufficientFunds(e),
      );
    } finally {
      provider.destroy();
    }
  });
});
