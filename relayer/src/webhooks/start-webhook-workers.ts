import type { AppContext } from "../context.js";
import { deliver } from "./deliver.js";
import { DELIVERY_QUEUE, openDeliveryQueue, type DeliveryJobData } from "./delivery-queue.js";
import { deliveryOptions, type DeliveryOptions } from "./delivery-options.js";
import { pruneOutbox } from "./prune-outbox.js";

/** A running set of delivery workers. */
export interface WebhookWorkersHandle {
  /** Stops fetching jobs, waits briefly for attempts in flight and closes the queue client. */
  stop(): Promise<void>;
}

/**
 * Starts this process's webhook delivery workers: pg-boss jobs from the `webhook-delivery`
 * queue, `concurrency` attempts in flight per process, at most `perWebhookConcurrency` per
 * webhook across all processes (pg-boss group concurrency), so one slow receiver cannot hold up
 * other organizations' deliveries. Released outbox events older than 30 days are pruned hourly.
 * Safe to run in every relayer process.
 *
 * @param ctx the application context (database, key store, config.webhookAllowLocal, logger)
 * @param overrides delivery knobs (tests: a short `backoffBaseMs`)
 * @returns a handle whose `stop()` ends the workers
 * @example
 * const workers = await startWebhookWorkers(ctx);
 * process.on("SIGTERM", () => workers.stop());
 */
export async function startWebhookWorkers(
  ctx: AppContext,
  overrides: Partial<DeliveryOptions> = {},
): Promise<WebhookWorkersHandle> {
  const logger = ctx.logger.child({ component: "webhooks" });
  const options = deliveryOptions(ctx.config.webhookAllowLocal, overrides);
  const boss = await openDeliveryQueue(ctx.database, logger, "rwa-webhook-workers");
  const deps = { database: ctx.database, keyStore: ctx.keyStore, boss, logger, options };
  await boss.work<DeliveryJobData>(
    DELIVERY_QUEUE,
    {
      localConcurrency: options.concurrency,
      // database-tracked bound across all processes (pg-boss refuses to combine it with
      // localGroupConcurrency, which would only bound this process)
      groupConcurrency: options.perWebhookConcurrency,
      batchSize: 1,
      pollingIntervalSeconds: 0.5,
      notifyPollingIntervalSeconds: 5,
    },
    async (jobs) => {
      for (const job of jobs) await deliver(deps, job.data);
    },
  );
  const pruner = setInterval(() => {
    pruneOutbox(ctx.database).catch((err: unknown) =>
      logger.warn({ err }, "outbox pruning failed"),
    );
  }, 3_600_000);
  pruner.unref();
  logger.info(
    { concurrency: options.concurrency, perWebhook: options.perWebhookConcurrency },
    "webhook workers started",
  );
  return {
    async stop() {
      clearInterval(pruner);
      await boss.offWork(DELIVERY_QUEUE, { wait: false }).catch(() => undefined);
      await boss.stop({ graceful: true, timeout: 5_000, close: true }).catch(() => undefined);
      logger.info("webhook workers stopped");
    },
  };
}
