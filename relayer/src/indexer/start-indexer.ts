import { setTimeout as sleep } from "node:timers/promises";
import type { PgBoss } from "pg-boss";
import { Counter, type Registry } from "prom-client";
import type { AppContext } from "../context.js";
import { INDEXED_CHANNEL } from "../engine/tx-notifier.js";
import { createPinQueue } from "../metadata/pin-queue.js";
import { acquireJobQueue } from "../webhooks/delivery-queue.js";
import { ChainReader } from "../chain/chain-reader.js";
import {
  ChainMovedError,
  nextBlockEvents,
  type ChainSyncOptions,
  type Cursor,
} from "./chain-sync.js";
import { INDEXED_TOPICS } from "./decode-log.js";
import { IndexerStore } from "./indexer-store.js";
import { LeaderLock } from "./leader-lock.js";
import { BalanceWatch } from "./balance-watch.js";

/** Options of `startIndexer` (all optional). */
export interface IndexerOptions extends Partial<ChainSyncOptions> {
  /**
   * How often to ask for the head while the process's block watcher is not following the chain
   * (not started, or failing; default 100 ms: a 1 s chain then lags by at most ~0.1 s). While it
   * follows, the indexer wakes on its new heads instead (`RECHECK_MS`).
   */
  pollIntervalMs?: number;
  /** How often a standby process tries the leader lock (default 1000 ms). */
  lockPollMs?: number;
}

/** A running indexer. */
export interface IndexerHandle {
  /** Stops following the chain, releases the leader lock and closes the queue client. */
  stop(): Promise<void>;
  /** Resolves once this process has indexed up to at least `block` (tests and benches). */
  waitForBlock(block: number, timeoutMs?: number): Promise<void>;
  /** Whether this process currently holds the leader lock. */
  isLeader(): boolean;
}

/**
 * While the block watcher follows the chain, a caught-up indexer waits for its next head, and
 * looks at the chain on its own after this long without one: a tip replaced at the same height
 * (which the next block would also reveal, through its parent hash) is rolled back within it.
 */
const RECHECK_MS = 1_000;

// Any constant: the same for every relayer process of one database.
export const INDEXER_LOCK_ID = 0x7277_6932; // "rwi2"

/** `rwa_reorgs_deeper_than_confirmations_total`, registered once per registry. */
function deepReorgCounter(registry: Registry): Counter {
  const name = "rwa_reorgs_deeper_than_confirmations_total";
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter({
    name,
    help: "Reorgs deeper than CONFIRMATIONS: answers already given as confirmed may have changed",
    registers: [registry],
  });
}

/**
 * Starts the chain indexer in this process. It follows new blocks (the process's block watcher's
 * heads, or its own `eth_blockNumber` every `pollIntervalMs` while the watcher is not following), tells waiting writes in every process how far it got (NOTIFY), reads the logs of the three contracts, writes the read model and the webhook
 * outbox in one transaction per block range, rolls back reorgs to the common ancestor, and
 * releases webhook events once `confirmations` blocks stand above their block
 * (`config.confirmations`, CONFIRMATIONS; 0 = as soon as the block is indexed). It starts from the deployment block and catches
 * up in ranges of `rangeSize` blocks. Only one process indexes at a time (Postgres advisory lock on a dedicated
 * connection); the others retry the lock every second and take over when the holder dies.
 *
 * @param ctx the application context (provider, database, contract addresses, logger)
 * @returns a handle whose `stop()` ends the loop
 * @example
 * const indexer = await startIndexer(ctx);
 * process.on("SIGTERM", () => indexer.stop());
 */
export async function startIndexer(
  ctx: AppContext,
  options: IndexerOptions = {},
): Promise<IndexerHandle> {
  const logger = ctx.logger.child({ component: "indexer" });
  const sync: ChainSyncOptions = {
    rangeSize: options.rangeSize ?? 2_000,
    tipDistance: options.tipDistance ?? 12,
    confirmations: options.confirmations ?? ctx.config.confirmations,
    maxReorgDepth: options.maxReorgDepth ?? 1_000,
  };
  const pollMs = options.pollIntervalMs ?? 100;
  const lockPollMs = options.lockPollMs ?? 1_000;
  const addresses = [
    ctx.contracts.assetTypeRegistry,
    ctx.contracts.assetToken,
    ctx.contracts.marketplace,
  ].map((a) => a.toLowerCase());
  const reader = new ChainReader(ctx.rpc, ctx.contracts, { logTopics: INDEXED_TOPICS });
  const queue = await acquireJobQueue(ctx.database, logger);
  const boss: PgBoss = queue.boss;
  await createPinQueue(boss);
  const store = new IndexerStore(ctx.database, boss, ctx.contracts.marketplace.toLowerCase(), [
    new BalanceWatch(ctx.rpc),
  ]);
  const connectionString = (ctx.database.pool.options as { connectionString?: string })
    .connectionString;
  if (connectionString === undefined) throw new Error("the database pool has no connection string");
  const lock = new LeaderLock(connectionString, INDEXER_LOCK_ID, logger);

  const deepReorgs = deepReorgCounter(ctx.metrics.registry);
  let running = true;
  let indexed = -1;
  const waiters = new Set<{ block: number; resolve: () => void }>();
  const notify = () => {
    for (const w of waiters) {
      if (indexed >= w.block) {
        waiters.delete(w);
        w.resolve();
      }
    }
  };
  const abort = new AbortController();
  const pause = (ms: number) =>
    sleep(ms, undefined, { signal: abort.signal }).catch(() => undefined);
  const watcher = ctx.engine.blocks;
  /**
   * Until there may be a block past `cursor`: the watcher's next head (at once when it has
   * already seen one), at most `RECHECK_MS`; `pollMs` while the watcher is not following. The
   * watcher polls the head once per process for everyone, so an idle indexer no longer asks
   * the node and the database ten times a second.
   */
  let lookedAt = -1;
  const nextHead = async (cursor: number): Promise<void> => {
    if (!watcher.following) return pause(pollMs);
    if (abort.signal.aborted) return;
    // A head the watcher saw before this step read its own (the node behind a failover may
    // answer lower): looked at once, then waited for like any other.
    if (watcher.head > cursor && watcher.head !== lookedAt) {
      lookedAt = watcher.head;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        watcher.off("block", done);
        abort.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, RECHECK_MS);
      watcher.on("block", done);
      abort.signal.addEventListener("abort", done);
    });
  };

  let bound = false;
  async function ensureCursor(): Promise<Cursor> {
    if (!bound) {
      if (await store.bindDeployment(ctx.contracts))
        logger.warn(
          { contracts: ctx.contracts },
          "contracts were redeployed: emptied the read model of the old ones; indexing from the new deployment block",
        );
      bound = true;
    }
    const existing = await store.cursor();
    if (existing !== undefined) return existing;
    const startNumber = Math.max(0, ctx.contracts.deployBlock - 1);
    const header = await reader.header(startNumber);
    if (header === undefined) throw new ChainMovedError(`start block ${startNumber} not found`);
    await store.initCursor(header);
    const created = await store.cursor();
    if (created === undefined) throw new Error("cursor not created");
    return created;
  }

  async function loop(): Promise<void> {
    let failures = 0;
    // The cursor as this process last read or moved it. While it holds the lock it is the only
    // writer (every move is a compare-and-set besides), so it reads the row again only after
    // taking the lock, or after a step that failed.
    let known: Cursor | undefined;
    while (running) {
      try {
        if (!lock.held) known = undefined;
        if (!(await lock.tryAcquire())) {
          await pause(lockPollMs);
          continue;
        }
        let cursor = known ?? (await ensureCursor());
        indexed = cursor.number;
        notify();
        const events = await nextBlockEvents(reader, store, cursor, sync);
        // No new block: events written since the last release that need no block to come
        // (a write's outcome, `engine/outcome-events.ts`: its block already has its
        // confirmations, or nothing was mined) are released now, not at the next block.
        const settled = cursor.number - sync.confirmations;
        if (events.length === 0 && settled > 0)
          events.push({ type: "finalize", blockNumber: settled });
        for (const event of events) {
          if (!running || !lock.held) break;
          const result = await store.apply(event, cursor);
          cursor = result.cursor;
          if (result.reopened.length > 0)
            logger.warn(
              { writes: result.reopened.map((r) => r.id) },
              "a reorg dropped mined writes; they are broadcast again with the same bytes",
            );
          if (event.type === "reorg") {
            // Deeper than CONFIRMATIONS: it dropped a block this indexer had released events of
            // (`depth > confirmations`), or one holding a write the engine had already answered
            // (the engine may have seen a head this indexer had not read yet).
            const deep = event.depth > sync.confirmations || result.answeredReopened > 0;
            if (deep) deepReorgs.inc();
            logger[deep ? "error" : "warn"](
              {
                ancestor: event.ancestor.number,
                depth: event.depth,
                confirmations: sync.confirmations,
                answeredWrites: result.answeredReopened,
              },
              deep
                ? "reorg deeper than CONFIRMATIONS: rolled back; writes answered as confirmed may change (raise CONFIRMATIONS)"
                : "reorg: rolled back to common ancestor",
            );
          } else if (event.type === "block" && event.logs.length > 0) {
            logger.debug(
              {
                block: cursor.number,
                logs: event.logs.length,
                webhookEvents: result.webhookEvents,
              },
              "indexed",
            );
          }
        }
        known = lock.held ? cursor : undefined;
        const advanced = cursor.number > indexed;
        indexed = cursor.number;
        notify();
        // Writes waiting to answer (in any process) learn that their block is readable now.
        if (advanced)
          await ctx.database.pool.query("SELECT pg_notify($1, $2)", [
            INDEXED_CHANNEL,
            String(indexed),
          ]);
        failures = 0;
        const caughtUp =
          events.length === 0 || events.every((e) => e.type !== "block" || e.headers.length <= 1);
        if (caughtUp) await nextHead(indexed);
      } catch (error) {
        known = undefined;
        failures += 1;
        const level = error instanceof ChainMovedError ? "debug" : "warn";
        logger[level]({ err: error, failures }, "indexer step failed; retrying");
        await pause(Math.min(5_000, pollMs * 2 ** Math.min(failures, 5)));
      }
    }
  }

  const done = loop();
  logger.info({ addresses, ...sync, pollMs }, "indexer started");

  return {
    isLeader: () => lock.held,
    waitForBlock(block, timeoutMs = 30_000) {
      if (indexed >= block) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const waiter = { block, resolve: () => (clearTimeout(timer), resolve()) };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`indexer did not reach block ${block} in ${timeoutMs} ms (at ${indexed})`),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async stop() {
      running = false;
      abort.abort();
      await done;
      await lock.release();
      await queue.release();
      logger.info("indexer stopped");
    },
  };
}
