import { PgBoss } from "pg-boss";
import type { Logger } from "pino";

/** The pg-boss queue carrying one job per root transaction row. */
export const TX_QUEUE = "tx-execute";

/** Job payload. */
export interface TxJobData {
  txId: string;
  orgId: string;
}

/** A fetched job. */
export interface TxJob {
  id: string;
  data: TxJobData;
}

/**
 * The durable queue of write work on pg-boss (same PostgreSQL). A job only says "drive row X";
 * the row holds all state, so a job that runs twice is harmless (the lease decides who works).
 * Plain `standard` policy: a job left `active` by a dead process must not block the job the
 * recovery sweep sends for its row (a singleton policy would), and duplicates cost one lease check.
 */
export class TxQueue {
  readonly #boss: PgBoss;
  readonly #logger: Logger;
  #started: Promise<void> | undefined;

  constructor(connectionString: string, logger: Logger) {
    this.#logger = logger;
    this.#boss = new PgBoss({
      connectionString,
      max: 4,
      application_name: "rwa-relayer-txqueue",
      superviseIntervalSeconds: 30,
      monitorIntervalSeconds: 30,
    });
    this.#boss.on("error", (error) => this.#logger.warn({ err: error }, "pg-boss error"));
  }

  /** Starts pg-boss (installs its schema on first use) and creates the queue. Idempotent. */
  start(): Promise<void> {
    this.#started ??= (async () => {
      await this.#boss.start();
      await this.#boss.createQueue(TX_QUEUE, {
        policy: "standard",
        retryLimit: 100_000,
        retryDelay: 1,
        retryBackoff: true,
        retryDelayMax: 15,
        expireInSeconds: 600,
        retentionSeconds: 7 * 24 * 3600,
        deleteAfterSeconds: 24 * 3600,
      });
    })();
    return this.#started;
  }

  /** Schedules a root row. */
  async send(data: TxJobData): Promise<boolean> {
    await this.start();
    const id = await this.#boss.send(TX_QUEUE, { ...data });
    return id !== null;
  }

  /** Claims up to `count` waiting jobs. */
  async fetch(count: number): Promise<TxJob[]> {
    await this.start();
    const jobs = await this.#boss.fetch<TxJobData>(TX_QUEUE, { batchSize: count });
    return jobs.map((j) => ({ id: j.id, data: j.data }));
  }

  async complete(jobId: string): Promise<void> {
    await this.#boss.complete(TX_QUEUE, jobId);
  }

  /** Fails the job; pg-boss retries it with backoff. */
  async fail(jobId: string, reason: string): Promise<void> {
    await this.#boss.fail(TX_QUEUE, jobId, { reason });
  }

  async stop(): Promise<void> {
    if (this.#started === undefined) return;
    await this.#started.catch(() => {});
    await this.#boss.stop({ graceful: false, timeout: 2_000 }).catch(() => {});
  }
}
