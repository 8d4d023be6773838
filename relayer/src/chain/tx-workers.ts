import type { AppContext } from "../context.js";
import { txRuntimeOf, type TxRuntimeOptions } from "./tx-runtime.js";

/**
 * Starts this process's transaction workers: the pg-boss queue (schema installed on first use),
 * the dispatcher that executes write jobs, lease renewal, and the recovery sweep that picks up
 * transactions a dead process left queued or sent (run once now, then every 5 s).
 *
 * Call once from the composition root after migrations; several processes may run it against one
 * database. `stop()` stops fetching, waits up to 5 s for running work and closes pg-boss; work
 * still in flight stays in PostgreSQL and is resumed by any process.
 *
 * @example
 * const workers = await startTxWorkers(ctx);
 * // on shutdown (before closing the database):
 * await workers.stop();
 */
export async function startTxWorkers(
  ctx: AppContext,
  options?: TxRuntimeOptions,
): Promise<{ stop(): Promise<void> }> {
  const runtime = txRuntimeOf(ctx, options);
  await runtime.dispatcher.start();
  return { stop: () => runtime.stop() };
}
