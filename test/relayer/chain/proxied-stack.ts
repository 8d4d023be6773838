import type { EngineOptions } from "../../../relayer/src/engine/engine.js";
import { ChainProbe } from "../../support/chain-probe.js";
import {
  startRpcFaultProxy,
  type RpcFaultProxy,
  type RpcFaultProxyOptions,
} from "../../support/rpc-fault-proxy.js";
import type { TestStackOptions } from "../../support/stack.js";
import { startWriteStack, type WriteStack } from "../writes/helpers.js";

/** A write stack whose relayer reaches the node only through fault proxies. */
export interface ProxiedWriteStack {
  stack: WriteStack;
  /** In `RPC_URL` order: the relayer fails over from the first to the next. */
  proxies: RpcFaultProxy[];
  /** The chain as the node itself reports it (not through a proxy). */
  chain: ChainProbe;
  /** Stops the stack, then the proxies. */
  stop(): Promise<void>;
}

/**
 * `startWriteStack` (engine and indexer running) with one fault proxy per entry of
 * `proxies` in front of the stack's anvil; the relayer's `RPC_URL` lists them in that order.
 * The anvil starts from the run's saved deployment (test/support/chain-state.ts); the proxies
 * forward everything until a test adds a rule.
 *
 * @example
 * const { stack, proxies: [proxy], chain, stop } = await startProxiedWriteStack([{}], { blockTime: 1 });
 * proxy.addRule({ method: "eth_getBlockReceipts", action: indexingInProgress(), forMs: 10_000 });
 */
export async function startProxiedWriteStack(
  proxies: readonly RpcFaultProxyOptions[],
  options: TestStackOptions = {},
  tx: EngineOptions = {},
): Promise<ProxiedWriteStack> {
  const started = await Promise.all(proxies.map((o) => startRpcFaultProxy(o)));
  const closeProxies = () => Promise.all(started.map((p) => p.close()));
  let stack: WriteStack;
  try {
    stack = await startWriteStack(
      {
        ...options,
        relayerRpcUrl: (nodeUrl) => {
          for (const proxy of started) proxy.target ??= nodeUrl;
          return started.map((p) => p.url).join(",");
        },
      },
      tx,
    );
  } catch (error) {
    await closeProxies();
    throw error;
  }
  const chain = new ChainProbe(stack.rpcUrl, stack.ctx.contracts.assetToken);
  return {
    stack,
    proxies: started,
    chain,
    stop: async () => {
      await stack.stop();
      await closeProxies();
      chain.close();
    },
  };
}
