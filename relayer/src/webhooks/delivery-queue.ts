import type pg from "pg";
import { PgBoss, type Db } from "pg-boss";
import type { Logger } from "pino";
import type { Database } from "../db/client.js";

/**
 * How long one delivery job may run before pg-boss takes it back from its worker (a killed
 * process) and runs it again. An attempt is bounded by the 5 s request timeout plus a few
 * database statements; the receiver deduplicates a rare second send by `webhook-id`.
 */
const EXPIRE_SECONDS = 15;

/** The pg-boss queue: one job per delivery attempt (`{ deliveryId }`). */
export const DELIVERY_QUEUE = "webhook-delivery";

/** Job payload. `manual` marks an operator/org redelivery (sent even when already delivered). */
export interface DeliveryJobData {
  deliveryId: string;
  manual?: boolean;
}

/** A delivery to enqueue. */
export interface DeliveryRef {
  id: string;
  /** The webhook's organization: the pg-boss group that bounds its share of delivery slots. */
  orgId: string;
}

/** pg-boss adapter running statements on a caller's client (inside its transaction). */
export function onClient(client: pg.ClientBase): Db {
  return { executeSql: (text, values) => client.query(text, values as unknown[]) };
}

/** The process's pg-boss client on one database, and how many parts of the process use it. */
interface SharedQueue {
  users: number;
  boss: Promise<PgBoss>;
}

const sharedQueues = new WeakMap<Database, SharedQueue>();

/** A part of the process's use of its pg-boss client (`acquireJobQueue`). */
export interface JobQueueLease {
  boss: PgBoss;
  /** Gives the client back; the last part to give it back stops it (its jobs in flight get 5 s). */
  release(): Promise<void>;
}

/**
 * The process's pg-boss client on `database` (its own small pool, `application_name`
 * `rwa-jobs`), with the delivery queue created: one per process, shared by the indexer (which
 * enqueues deliveries and pins), the webhook workers and the pin workers. One client means one
 * maintenance pass and one `LISTEN` connection per process, and at most 4 + 1 connections
 * (docs/scaling.md "Database connections"), not that many per part. Opened by the first part
 * that asks, stopped when the last one releases it. Jobs are grouped by organization id, so
 * workers can bound the number of delivery slots one organization's receivers hold
 * (docs/webhooks.md "Fair delivery").
 *
 * @example
 * const queue = await acquireJobQueue(ctx.database, logger);
 * await enqueueDeliveries(queue.boss, deliveries);
 * await queue.release();
 */
export async function acquireJobQueue(database: Database, logger: Logger): Promise<JobQueueLease> {
  let shared = sharedQueues.get(database);
  if (shared === undefined) {
    const opening = openJobQueue(database, logger);
    const entry: SharedQueue = { users: 0, boss: opening };
    shared = entry;
    sharedQueues.set(database, entry);
    // A client that did not open is forgotten: the next part to ask tries again.
    opening.catch(() => {
      if (sharedQueues.get(database) === entry) sharedQueues.delete(database);
    });
  }
  const entry = shared;
  entry.users += 1;
  let boss: PgBoss;
  try {
    boss = await entry.boss;
  } catch (error) {
    entry.users -= 1;
    throw error;
  }
  let released = false;
  return {
    boss,
    async release() {
      if (released) return;
      released = true;
      entry.users -= 1;
      if (entry.users > 0) return;
      if (sharedQueues.get(database) === entry) sharedQueues.delete(database);
      await boss.stop({ graceful: true, timeout: 5_000, close: true }).catch(() => undefined);
    },
  };
}

async function openJobQueue(database: Database, logger: Logger): Promise<PgBoss> {
  const connectionString = (database.pool.options as { connectionString?: string })
    .connectionString;
  if (connectionString === undefined)
    throw new Error("the database pool has no connection string (needed by pg-boss)");
  const boss = new PgBoss({
    connectionString,
    max: 4,
    application_name: "rwa-jobs",
    useListenNotify: true,
    // The monitor pass expires the jobs of dead workers: every 5 s, so a delivery a killed process
    // had claimed is retried within about EXPIRE_SECONDS + 5 s + retryDelay.
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
  });
  boss.on("error", (error) => logger.warn({ err: error }, "pg-boss error"));
  await boss.start();
  const options = {
    // Only for crashed workers and failed database statements (the handler schedules the
    // receiver retries itself): 1 s, 2 s, 4 s ... up to about 17 min in all.
    retryLimit: 10,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: EXPIRE_SECONDS,
    retentionSeconds: 4 * 24 * 3600,
    deleteAfterSeconds: 24 * 3600,
  };
  await boss.createQueue(DELIVERY_QUEUE, { notify: true, ...options });
  // createQueue leaves an existing queue as it is: bring one made by an older version up to date.
  await boss.updateQueue(DELIVERY_QUEUE, options);
  return boss;
}

/**
 * Enqueues one attempt per delivery, on `client` when given (so the jobs commit with the rows
 * that created them).
 */
export async function enqueueDeliveries(
  boss: PgBoss,
  deliveries: readonly DeliveryRef[],
  options: { client?: pg.ClientBase; startAfterSeconds?: number; manual?: boolean } = {},
): Promise<void> {
  if (deliveries.length === 0) return;
  const jobs = deliveries.map((d) => ({
    data: {
      deliveryId: d.id,
      ...(options.manual === true ? { manual: true } : {}),
    } satisfies DeliveryJobData,
    group: { id: d.orgId },
    ...(options.startAfterSeconds !== undefined && options.startAfterSeconds > 0
      ? { startAfter: Math.ceil(options.startAfterSeconds) }
      : {}),
  }));
  await boss.insert(
    DELIVERY_QUEUE,
    jobs,
    options.client === undefined ? undefined : { db: onClient(options.client) },
  );
}

/** A pg-boss handle that only enqueues (`ctx.deliveries`). */
export type DeliveryProducer = PgBoss;

/**
 * A pg-boss handle for enqueueing only (HTTP handlers: redeliver, test ping), on the existing
 * pool: no workers, no maintenance, nothing to stop. The queue itself is created by the workers.
 */
export function createDeliveryProducer(database: Database): DeliveryProducer {
  return new PgBoss({
    db: { executeSql: (text, values) => database.pool.query(text, values as unknown[]) },
  });
}
