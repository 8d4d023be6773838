import { JsonRpcProvider } from "ethers";
import type { TxRuntimeOptions } from "../../../relayer/src/chain/tx-runtime.js";
import { startTxWorkers } from "../../../relayer/src/chain/tx-workers.js";
import { startIndexer } from "../../../relayer/src/indexer/start-indexer.js";
import { startTestStack, type TestStack, type TestStackOptions } from "../../support/stack.js";

/** A test stack with the transaction workers running. */
export interface WriteStack extends TestStack {
  provider: JsonRpcProvider;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
}

/**
 * Starts the shared harness plus `startTxWorkers` and the indexer (both stopped before the
 * stack), as `npm start` runs them: a synchronous write answers once the indexer has applied its
 * block. `tx` overrides the runtime's tuning (default: 200 ms nonce checks).
 */
export async function startWriteStack(
  options: TestStackOptions = {},
  tx: TxRuntimeOptions = {},
): Promise<WriteStack> {
  const stack = await startTestStack({
    logLevel: "warn",
    ...options,
    tx: { ...tx, sequencer: { checkIntervalMs: 200, ...tx.sequencer } },
  });
  const workers = await startTxWorkers(stack.ctx);
  const indexer = await startIndexer(stack.ctx, { lockPollMs: 200 });
  const provider = new JsonRpcProvider(stack.rpcUrl, 1236, { staticNetwork: true });
  const stop = stack.stop.bind(stack);
  return Object.assign(stack, {
    provider,
    rpc: <T>(method: string, params: unknown[] = []) => provider.send(method, params) as Promise<T>,
    stop: async () => {
      const t0 = Date.now();
      await workers.stop();
      await indexer.stop();
      const t1 = Date.now();
      provider.destroy();
      await stop();
      if (process.env.STACK_TIMING === "1")
        console.error(`workers.stop ${t1 - t0} ms, stack.stop ${Date.now() - t1} ms`);
    },
  });
}

/** A valid issue-asset body. */
export function assetBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { assetType: "Bond", name: "Test Bond", description: "A bond for tests", ...overrides };
}
