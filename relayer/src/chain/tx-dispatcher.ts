import type { Logger } from "pino";
import { classifyRpcFailure } from "./rpc-errors.js";
import type { OrgSlots } from "./org-slots.js";
import { MAX_IN_FLIGHT_PER_ORG } from "./org-slots.js";
import type { TxEngine } from "./tx-engine.js";
import type { TxJob, TxQueue } from "./tx-queue.js";
import type { TxStore } from "./tx-store.js";

/** Options of the dispatcher. */
export interface TxDispatcherOptions {
  /** Jobs this process works on at once (all organizations). Default 200. */
  maxConcurrent: number;
  /** Poll for jobs sent by other processes at this interval when idle. Default 250 ms. */
  idlePollMs: number;
  /** Recovery sweep interval. Default 5 s. */
  sweepMs: number;
  /** Interval of the purge of expired `Idempotency-Key` records. Default 10 min. */
  purgeMs: number;
}

/**
 * The worker loop of one process: fetches jobs from the queue, leases their rows, waits for an
 * org slot (at most 10 per org across processes; more wait here, in memory, in order; work that
 * already holds a nonce never waits, since later nonces depend on it), drives
 * them with the engine, and completes or fails (= retry later) the jobs. A periodic sweep (also
 * run at start) re-queues live rows whose lease expired: the work of a process that died. Another
 * timer deletes expired `Idempotency-Key` records.
 */
export class TxDispatcher {
  readonly #queue: TxQueue;
  readonly #engine: TxEngine;
  readonly #store: TxStore;
  readonly #slots: OrgSlots;
  readonly #logger: Logger;
  readonly #owner: string;
  readonly #options: TxDispatcherOptions;
  readonly #running = new Set<Promise<void>>();
  readonly #orgWaiters = new Map<string, { active: number; waiters: Array<() => void> }>();
  #stopped = true;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #timers: NodeJS.Timeout[] = [];

  constructor(deps: {
    queue: TxQueue;
    engine: TxEngine;
    store: TxStore;
    slots: OrgSlots;
    logger: Logger;
    owner: string;
    options?: Partial<TxDispatcherOptions>;
  }) {
    this.#queue = deps.queue;
    this.#engine = deps.engine;
    this.#store = deps.store;
    this.#slots = deps.slots;
    this.#logger = deps.logger;
    this.#owner = deps.owner;
    this.#options = {
      maxConcurrent: 200,
      idlePollMs: 250,
      sweepMs: 5_000,
      purgeMs: 600_000,
      ...deps.options,
    };
  }

  /** Starts fetching, the lease renewal and the recovery sweep (one sweep right away). */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    await this.#queue.start();
    await this.sweep(0);
    const leaseMs = this.#engine.options.leaseMs;
    this.#timers.push(
      setInterval(
        () =>
          void this.#store
            .renewLeases(this.#owner, leaseMs)
            .catch((err) => this.#logger.warn({ err }, "lease renewal failed")),
        Math.floor(leaseMs / 3),
      ),
      setInterval(
        () =>
          void this.sweep(leaseMs).catch((err) =>
            this.#logger.warn({ err }, "recovery sweep failed"),
          ),
        this.#options.sweepMs,
      ),
      setInterval(
        () =>
          void this.#store
            .purgeExpiredIdempotencyKeys()
            .then((count) => {
              if (count > 0) this.#logger.info({ count }, "purged expired idempotency keys");
            })
            .catch((err) => this.#logger.warn({ err }, "idempotency key purge failed")),
        this.#options.purgeMs,
      ),
    );
    this.#loop = this.#run();
  }

  /** Wakes the fetch loop now (after a local `send`). */
  wake(): void {
    this.#wake?.();
  }

  /**
   * Re-queues live root rows whose lease expired (or that were never picked up within `graceMs`).
   * @returns how many jobs were sent
   */
  async sweep(graceMs: number): Promise<number> {
    const orphans = await this.#store.orphans(graceMs);
    let sent = 0;
    for (const orphan of orphans) {
      if (await this.#queue.send({ txId: orphan.id, orgId: orphan.orgId })) sent++;
    }
    if (sent > 0) {
      this.#logger.info({ count: sent }, "recovery sweep re-queued transactions");
      this.wake();
    }
    return sent;
  }

  /** Stops fetching; waits up to `timeoutMs` for running drives, then gives their leases back. */
  async stop(timeoutMs = 5_000): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    this.wake();
    await this.#loop;
    await Promise.race([Promise.allSettled([...this.#running]), sleep(timeoutMs)]);
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const free = this.#options.maxConcurrent - this.#running.size;
      let jobs: TxJob[] = [];
      if (free > 0) {
        try {
          jobs = await this.#queue.fetch(Math.min(free, 50));
        } catch (err) {
          this.#logger.warn({ err }, "fetching transaction jobs failed");
        }
      }
      for (const job of jobs) {
        const run = this.#handle(job).finally(() => {
          this.#running.delete(run);
          this.wake();
        });
        this.#running.add(run);
      }
      if (jobs.length === 0 || free - jobs.length <= 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.#options.idlePollMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.#wake = undefined;
      }
    }
  }

  async #handle(job: TxJob): Promise<void> {
    const { txId, orgId } = job.data;
    const leaseMs = this.#engine.options.leaseMs;
    try {
      if (!(await this.#store.claimLease(txId, this.#owner, leaseMs))) {
        // Final already, or another process holds it: nothing to do for this job.
        await this.#queue.complete(job.id);
        return;
      }
    } catch (err) {
      this.#logger.warn({ err, txId }, "claiming a transaction failed");
      await this.#queue.fail(job.id, "claim failed").catch(() => {});
      return;
    }
    let release: (() => Promise<void>) | undefined;
    let keepLease = false;
    try {
      if (await this.#store.holdsNonce(txId)) {
        // Already has a nonce (resumed after a crash or an outage): it must go out now, or later
        // nonces of the wallet (which may hold every slot) could never be mined.
        await this.#slots.takeUnchecked(txId);
        release = () => this.#slots.release(txId);
      } else {
        release = await this.#acquireOrgSlot(orgId, txId);
      }
      await this.#engine.drive(txId);
      await this.#queue.complete(job.id);
    } catch (err) {
      const retryable = classifyRpcFailure(err) === "unavailable";
      // Keep the lease while pg-boss retries (it lapses if this process dies): no sweep duplicates.
      keepLease = retryable;
      if (retryable) this.#logger.warn({ txId }, "RPC unavailable; transaction will be retried");
      else this.#logger.error({ err, txId }, "driving a transaction failed; will retry");
      await this.#queue
        .fail(job.id, retryable ? "RPC unavailable" : String((err as Error).message))
        .catch(() => {});
    } finally {
      await release?.();
      if (!keepLease) await this.#store.releaseLease(txId, this.#owner).catch(() => {});
    }
  }

  /** Local FIFO per org (no DB chatter while waiting), then the cross-process slot. */
  async #acquireOrgSlot(orgId: string, txId: string): Promise<() => Promise<void>> {
    let local = this.#orgWaiters.get(orgId);
    if (local === undefined) {
      local = { active: 0, waiters: [] };
      this.#orgWaiters.set(orgId, local);
    }
    const entry = local;
    while (entry.active >= MAX_IN_FLIGHT_PER_ORG)
      await new Promise<void>((resolve) => entry.waiters.push(resolve));
    entry.active++;
    const releaseLocal = () => {
      entry.active--;
      entry.waiters.shift()?.();
      if (entry.active === 0 && entry.waiters.length === 0) this.#orgWaiters.delete(orgId);
    };
    try {
      while (!(await this.#slots.tryAcquire(orgId, txId))) await sleep(250);
    } catch (err) {
      releaseLocal();
      throw err;
    }
    return async () => {
      releaseLocal();
      await this.#slots.release(txId).catch(() => {});
    };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
