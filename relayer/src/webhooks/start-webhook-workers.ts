import { setTimeout as sleep } from "node:timers/promises";
import type { AppContext } from "../context.js";
import { deliver } from "./deliver.js";
import { acquireJobQueue, DELIVERY_QUEUE, type DeliveryJobData } from "./delivery-queue.js";
import { deliveryOptions, type DeliveryOptions } from "./delivery-options.js";
import { pruneOutbox } from "./prune-outbox.js";

/** A running set of delivery workers. */
export interface WebhookWorkersHandle {
  /** Stops fetching jobs, waits briefly for attempts in flight and closes the queue client. */
  stop(): Promise<void>;
}

/**
 * Starts this process's webhook delivery workers: pg-boss jobs from the `webhook-delivery`
 * queue, `concurrency` attempts in flight per process, at most `perOrgConcurrency` of them per
 * organization (pg-boss local group concurrency, jobs grouped by organization), so one
 * organization's slow or dead receivers cannot hold up other organizations' deliveries;
 * a webhook whose attempts keep timing out is held by its circuit breaker
 * (`circuit-breaker.ts`). Released outbox events older than 30 days are pruned hourly.
 * Safe to run in every relayer process.
 *
 * @param ctx the application context (database, key store, config.webhookAllowLocal and
 *   config.webhookBackoffBaseMs, logger)
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
  const options = deliveryOptions(ctx.config, overrides);
  const queue = await acquireJobQueue(ctx.database, logger);
  const boss = queue.boss;
  const deps = { database: ctx.database, keyStore: ctx.keyStore, boss, logger, options };
  await boss.work<DeliveryJobData>(
    DELIVERY_QUEUE,
    {
      localConcurrency: options.concurrency,
      // Per process, in memory: exact. pg-boss's database-tracked `groupConcurrency` (it refuses
      // both at once) counts active jobs at the start of each fetch, so 16 workers fetching at
      // the same moment overshoot it (7 of a bound of 4 measured in fair-delivery.test.ts). Every
      // process applying this bound caps an organization at perOrg/concurrency of all slots; the
      // circuit breaker (its state is in the database) bounds a dead destination across processes.
      localGroupConcurrency: options.perOrgConcurrency,
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
    { concurrency: options.concurrency, perOrg: options.perOrgConcurrency },
    "webhook workers started",
  );
  return {
    async stop() {
      clearInterval(pruner);
      // Attempts in flight get up to 5 s (a receiver's timeout), whoever else still uses the
      // process's queue client.
      await Promise.race([
        boss.offWork(DELIVERY_QUEUE, { wait: true }).catch(() => undefined),
        sleep(5_000, undefined, { ref: false }),
      ]);
      await queue.release();
      logger.info("webhook workers stopped");
    },
  };
}
