import type { AppContext } from "../context.js";

/**
 * Starts this process's transaction workers (`ctx.tx`): the notification listener, the block
 * watcher and the per-wallet sequencer (which also takes over wallets whose lease a dead process
 * left). The engine's tuning is given to `createAppContext` (`tx` option). Without `engine`
 * (RELAYER_ROLE=api) only the listener and the block watcher start: requests' chain views and
 * waits need them, and the processes that run the engine send what this one records.
 *
 * Call once from the composition root after migrations; several processes may run it against one
 * database. `stop()` stops taking work, waits up to 5 s for running rounds and gives the wallet
 * leases back; work in flight stays in PostgreSQL and is resumed by any process.
 *
 * @example
 * const workers = await startTxWorkers(ctx);
 * // on shutdown (before closing the database):
 * await workers.stop();
 */
export async function startTxWorkers(
  ctx: AppContext,
  options: { engine: boolean } = { engine: true },
): Promise<{ stop(): Promise<void> }> {
  await ctx.tx.start(options);
  return { stop: () => ctx.tx.stop() };
}
