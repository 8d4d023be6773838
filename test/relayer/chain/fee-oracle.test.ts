import assert from "node:assert/strict";
import { eventually } from "../../support/eventually.js";
import { after, describe, it } from "node:test";
import { Transaction, Wallet } from "ethers";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import { FeeOracle, type FeeQuote } from "../../../relayer/src/engine/fee-oracle.js";
import { RpcClient } from "../../../relayer/src/chain/rpc/rpc-client.js";
import { isTxTypeUnsupported } from "../../../relayer/src/chain/rpc/rpc-errors.js";
import { startDialectProxy, type DialectProxyOptions } from "../../support/dialect-proxy.js";
import { startRpcFaultProxy } from "../../support/rpc-fault-proxy.js";

const GWEI = 10n ** 9n;

/** Signs a self-transfer priced by `quote` the way the engine's signer does for each type. */
function signed(wallet: Wallet, nonce: number, quote: FeeQuote): string {
  const common = { chainId: 1236, nonce, to: wallet.address, value: 0n, gasLimit: 21_000n };
  const tx =
    quote.type === 0
      ? Transaction.from({ ...common, type: 0, gasPrice: quote.maxFeePerGas })
      : Transaction.from({
          ...common,
          type: 2,
          maxFeePerGas: quote.maxFeePerGas,
          maxPriorityFeePerGas: quote.maxPriorityFeePerGas,
        });
  tx.signature = wallet.signingKey.sign(tx.unsignedHash);
  return tx.serialized;
}

async function sendAndMine(rpc: RpcClient, wallet: Wallet, quote: FeeQuote): Promise<void> {
  const nonce = Number(
    BigInt(await rpc.call<string>("eth_getTransactionCount", [wallet.address, "pending"])),
  );
  const hash = await rpc.call<string>("eth_sendRawTransaction", [signed(wallet, nonce, quote)]);
  // Automine: anvil may answer the send a moment before the block with its receipt is in.
  await eventually(
    async () => {
      const receipt = await rpc.call<{ status: string } | null>("eth_getTransactionReceipt", [
        hash,
      ]);
      assert.equal(receipt?.status, "0x1");
    },
    10_000,
    20,
  );
}

describe("FeeOracle on anvil at other hardforks and behind a proxy", () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const anvil = async (hardfork?: string, extraArgs: string[] = []): Promise<AnvilHandle> => {
    const chain = await startAnvil({
      port: await findFreePort(),
      blockTime: 0,
      ...(hardfork === undefined ? {} : { hardfork }),
      extraArgs,
    });
    cleanups.push(() => chain.stop());
    return chain;
  };
  const proxy = async (chain: AnvilHandle, options: DialectProxyOptions) => {
    const started = await startDialectProxy(chain.rpcUrl, options);
    cleanups.push(() => started.close());
    return started;
  };

  it("on anvil's default hardfork: type 2 from eth_feeHistory, and the transaction is mined", async () => {
    const rpc = new RpcClient((await anvil()).rpcUrl);
    const oracle = new FeeOracle(rpc);
    const quote = await oracle.quote();
    assert.equal(quote.type, 2);
    assert.equal(oracle.model?.source, "eth_feeHistory");
    assert.ok(
      quote.maxPriorityFeePerGas >= GWEI && quote.maxFeePerGas > quote.maxPriorityFeePerGas,
    );
    await sendAndMine(rpc, new Wallet(ANVIL_DEV_PRIVATE_KEY), quote);
  });

  it("on anvil --hardfork berlin: legacy type 0 with gasPrice = maxFeePerGas = maxPriorityFeePerGas, mined; a type-2 transaction is refused (isTxTypeUnsupported)", async () => {
    const rpc = new RpcClient((await anvil("berlin")).rpcUrl);
    const oracle = new FeeOracle(rpc);
    const quote = await oracle.quote();
    assert.deepEqual(oracle.model && { type: oracle.model.type, source: oracle.model.source }, {
      type: 0,
      source: "eth_gasPrice",
    });
    assert.equal(quote.type, 0);
    assert.equal(quote.maxFeePerGas, quote.maxPriorityFeePerGas);
    assert.ok(quote.maxFeePerGas > 0n);
    const wallet = new Wallet(ANVIL_DEV_PRIVATE_KEY);
    await sendAndMine(rpc, wallet, quote);
    await assert.rejects(sendAndMine(rpc, wallet, { ...quote, type: 2 }), (error) =>
      isTxTypeUnsupported(error),
    );
  });

  it("on a free-gas legacy chain (anvil --hardfork berlin --gas-price 0): zero fees, and a wallet without coin gets mined", async () => {
    const rpc = new RpcClient((await anvil("berlin", ["--gas-price", "0"])).rpcUrl);
    const quote = await new FeeOracle(rpc).quote();
    assert.deepEqual(quote, { type: 0, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
    await sendAndMine(rpc, new Wallet(Wallet.createRandom().privateKey), quote);
  });

  it("on a free-gas London chain answering eth_gasPrice 0 (anvil --base-fee 0 behind a proxy, as Besu's zeroBaseFee): zero type-2 fees, mined from an empty wallet", async () => {
    const chain = await anvil(undefined, ["--base-fee", "0", "--gas-price", "0"]);
    const node = await proxy(chain, { results: { eth_gasPrice: "0x0" } });
    const rpc = new RpcClient(node.url);
    const quote = await new FeeOracle(rpc).quote();
    assert.deepEqual(quote, { type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
    await sendAndMine(rpc, new Wallet(Wallet.createRandom().privateKey), quote);
  });

  it("without eth_feeHistory it prices from eth_maxPriorityFeePerGas, without either from eth_gasPrice", async () => {
    const chain = await anvil();
    const noHistory = new FeeOracle(
      new RpcClient((await proxy(chain, { missingMethods: ["eth_feeHistory"] })).url),
    );
    const tipQuote = await noHistory.quote();
    assert.equal(noHistory.model?.source, "eth_maxPriorityFeePerGas");
    assert.equal(tipQuote.type, 2);
    assert.ok(tipQuote.maxPriorityFeePerGas >= GWEI);

    const bare = await proxy(chain, {
      missingMethods: ["eth_feeHistory", "eth_maxPriorityFeePerGas"],
    });
    const rpc = new RpcClient(bare.url);
    const oracle = new FeeOracle(rpc);
    const quote = await oracle.quote();
    assert.equal(oracle.model?.source, "eth_gasPrice");
    await sendAndMine(rpc, new Wallet(ANVIL_DEV_PRIVATE_KEY), quote);
  });

  it("detects the model again after a quote fails (a method gone), and on redetect()", async () => {
    const chain = await anvil();
    const options: DialectProxyOptions = {};
    const node = await proxy(chain, options);
    const oracle = new FeeOracle(new RpcClient(node.url), { ttlMs: 0 });
    await oracle.quote();
    assert.equal(oracle.model?.source, "eth_feeHistory");

    options.missingMethods = ["eth_feeHistory"];
    await assert.rejects(oracle.quote(), /Method not found/);
    await oracle.quote();
    assert.equal(oracle.model?.source, "eth_maxPriorityFeePerGas");

    options.results = { eth_gasPrice: "0x0" };
    options.missingMethods = [];
    // The node comes back as a free-gas chain; the engine asks for the model again.
    await chain.stop();
    const restarted = await startAnvil({
      port: Number(new URL(chain.rpcUrl).port),
      blockTime: 0,
      extraArgs: ["--base-fee", "0"],
    });
    cleanups.push(() => restarted.stop());
    oracle.redetect();
    assert.deepEqual(await oracle.quote(), { type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n });
    assert.equal(oracle.model?.source, "free");
  });

  it("quoteForCheck: while the next quote is slow the last one stands in; quote() itself waits for it", async () => {
    const chain = await anvil();
    const node = await startRpcFaultProxy({ target: chain.rpcUrl });
    cleanups.push(() => node.close());
    const oracle = new FeeOracle(new RpcClient(node.url), { ttlMs: 50 });
    await oracle.detect();
    const first = await oracle.quote();
    assert.deepEqual(await oracle.quoteForCheck(), first, "current: the quote itself");
    await new Promise((resolve) => setTimeout(resolve, 60));

    // The next quote's reads take a second (the node busy mining).
    node.addRule({ method: "*", action: { kind: "delay", ms: 1_000 } });
    const forwarded = node.counts().forwarded;
    const sum = (counts: Record<string, number>) =>
      Object.values(counts).reduce((a, b) => a + b, 0);
    assert.deepEqual(await oracle.quoteForCheck(), first, "the last quote stands in");
    assert.equal(sum(node.counts().forwarded), sum(forwarded), "before the new one was read");
    const next = await oracle.quote();
    assert.ok(sum(node.counts().forwarded) > sum(forwarded), "quote() waited for the node");
    assert.deepEqual(await oracle.quoteForCheck(), next, "and the new quote is current");
  });
});
