import type { AppContext } from "../context.js";
import { acquireJobQueue } from "../webhooks/delivery-queue.js";
import { pinDocument } from "./pin-document.js";
import { createPinQueue, enqueuePins, PIN_QUEUE, type PinJobData } from "./pin-queue.js";

/** A running pin worker. */
export interface PinWorkersHandle {
  stop(): Promise<void>;
}

/**
 * Starts this process's metadata pin worker: jobs of the `metadata-pin` queue (queued by the
 * indexer when it binds a document to a minted token), each pinning one document on the IPFS
 * target; a failed pin is retried by pg-boss with backoff (`PIN_RETRY`) and never touches the
 * mint. At start it also queues every document still unpinned (a process stopped mid-way).
 *
 * @example
 * const pins = await startPinWorkers(ctx);
 * process.on("SIGTERM", () => pins.stop());
 */
export async function startPinWorkers(ctx: AppContext): Promise<PinWorkersHandle> {
  const logger = ctx.logger.child({ component: "ipfs" });
  const target = ctx.ipfs;
  // Before the process serves: the first mint's pin does not stall requests to load it.
  await target.warm?.();
  const queue = await acquireJobQueue(ctx.database, logger);
  const boss = queue.boss;
  await createPinQueue(boss);
  await boss.work<PinJobData>(
    PIN_QUEUE,
    { localConcurrency: 2, batchSize: 1, pollingIntervalSeconds: 1 },
    async (jobs) => {
      for (const job of jobs) {
        try {
          const outcome = await pinDocument(ctx.database, target, job.data.cid);
          logger.info({ cid: job.data.cid, target: target.name, outcome }, "metadata pin");
        } catch (error) {
          logger.warn(
            { cid: job.data.cid, target: target.name, err: error },
            "metadata pin failed; will retry",
          );
          throw error;
        }
      }
    },
  );
  const { rows } = await ctx.database.pool.query<{ cid: string }>(
    `SELECT DISTINCT cid FROM token_metadata WHERE pinned_at IS NULL`,
  );
  await enqueuePins(
    boss,
    rows.map((r) => r.cid),
  );
  logger.info({ target: target.name, queued: rows.length }, "metadata pin worker started");
  return {
    async stop() {
      await boss.offWork(PIN_QUEUE, { wait: false }).catch(() => undefined);
      await queue.release();
    },
  };
}
