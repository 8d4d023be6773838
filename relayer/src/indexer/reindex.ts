import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import { createDatabase, type Database } from "../db/client.js";
import type { ContractAddresses } from "../chain/contracts/bindings.js";
import { ChainReader } from "../chain/chain-reader.js";
import { assertHistoryAt } from "../chain/history.js";
import type { RpcClient } from "../chain/rpc/rpc-client.js";
import { nextBlockEvents, type ChainSyncOptions } from "./chain-sync.js";
import { INDEXED_TOPICS } from "./decode-log.js";
import { IndexerStore } from "./indexer-store.js";

/** The schema the new read model is built in. */
export const REINDEX_SCHEMA = "reindex_shadow";

/**
 * The indexed tables `npm run reindex` rebuilds and swaps in: the read model and the indexer's
 * cursor and block hashes.
 */
export const REINDEXED_TABLES = [
  "indexer_cursor",
  "indexed_blocks",
  "chain_logs",
  "asset_types",
  "assets",
  "transfers",
  "listings",
  "sales",
  "allowlist",
  "market_state",
] as const;

/**
 * Tables the indexer also writes that the rebuild keeps to itself and throws away: the webhook
 * outbox (the events of blocks the service already indexed were sent; those of blocks only the
 * rebuild reached are copied over) and the metadata bindings (by transaction, not by block: the
 * live ones stay, with their pin state).
 */
const SHADOW_ONLY = ["webhook_events", "webhook_deliveries", "token_metadata"] as const;

/** How a rebuild went on, once a second or so. */
export interface ReindexProgress {
  block: number;
  head: number;
  deployBlock: number;
  blocksPerSecond: number;
}

/** What a rebuild did. */
export interface ReindexReport {
  blocks: number;
  seconds: number;
  /** The block the new tables were swapped in at. */
  swappedAt: number;
  /** Rows of each table swapped in. */
  rows: Record<string, number>;
}

/** A pg-boss stand-in: the rebuild enqueues nothing (no pins, no deliveries). */
const NO_QUEUE = {
  insert: () => Promise.resolve(),
  send: () => Promise.resolve(null),
} as unknown as PgBoss;

/**
 * Rebuilds every indexed table from the deployment block while the service runs
 * (`npm run reindex`, docs/recovery.md "Rebuilding the read model"). The indexer's own code
 * (`IndexerStore`, `nextBlockEvents`) indexes into copies of the tables in the schema
 * `reindex_shadow` (a pool whose `search_path` puts it first), enqueuing nothing; reads go on
 * answering from the live tables meanwhile. Once the copy has reached the live indexer's block,
 * one transaction locks the live tables, replaces their rows with the copy's, moves the cursor
 * to the copy's block and copies the webhook events of the blocks only the copy indexed: reads
 * wait only for that transaction. The live indexer, whose cursor moved, reads it again and goes
 * on from there.
 *
 * @throws Error when the chain or the database fails (nothing is swapped in; run it again)
 */
export async function reindexReadModel(args: {
  database: Database;
  connectionString: string;
  rpc: RpcClient;
  contracts: ContractAddresses;
  logger: Logger;
  progress: (p: ReindexProgress) => void;
  rangeSize?: number;
}): Promise<ReindexReport> {
  const { database, contracts } = args;
  const started = Date.now();
  const pool = database.pool;
  await pool.query(`DROP SCHEMA IF EXISTS ${REINDEX_SCHEMA} CASCADE`);
  await pool.query(`CREATE SCHEMA ${REINDEX_SCHEMA}`);
  for (const table of [...REINDEXED_TABLES, ...SHADOW_ONLY])
    await pool.query(
      `CREATE TABLE ${REINDEX_SCHEMA}.${table} (LIKE public.${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`,
    );
  const url = new URL(args.connectionString);
  url.searchParams.set("options", `-c search_path=${REINDEX_SCHEMA},public`);
  const shadow = createDatabase(url.toString(), { max: 2, applicationName: "rwa-reindex" });
  try {
    const store = new IndexerStore(shadow, NO_QUEUE, contracts.marketplace.toLowerCase(), []);
    const reader = new ChainReader(args.rpc, contracts, { logTopics: INDEXED_TOPICS });
    const sync: ChainSyncOptions = {
      rangeSize: args.rangeSize ?? 2_000,
      tipDistance: 12,
      confirmations: 0,
      maxReorgDepth: 1_000,
    };
    // The deployment block has transactions: a node that dropped them cannot give the history.
    await assertHistoryAt(
      args.rpc,
      contracts.deployBlock,
      "rebuild the read model from the deployment block",
    );
    const startNumber = Math.max(0, contracts.deployBlock - 1);
    const header = await reader.header(startNumber);
    if (header === undefined) throw new Error(`the deployment block ${startNumber} is not found`);
    await store.initCursor(header);
    let blocks = 0;
    let reportedAt = 0;
    for (;;) {
      // Up to the head.
      for (;;) {
        let cursor = (await store.cursor())!;
        const events = await nextBlockEvents(reader, store, cursor, sync);
        const from = cursor.number;
        for (const event of events) cursor = (await store.apply(event, cursor)).cursor;
        blocks += Math.max(0, cursor.number - from);
        if (Date.now() - reportedAt > 1_000 || events.length === 0) {
          reportedAt = Date.now();
          const head = Number(BigInt(await args.rpc.call<string>("eth_blockNumber", [])));
          args.progress({
            block: cursor.number,
            head,
            deployBlock: contracts.deployBlock,
            blocksPerSecond: blocks / Math.max(0.001, (Date.now() - started) / 1000),
          });
        }
        if (events.every((e) => e.type !== "block")) break;
      }
      const swapped = await swapIn(pool);
      if (swapped !== undefined) {
        const seconds = (Date.now() - started) / 1000;
        args.logger.info({ blocks, seconds, swappedAt: swapped.block }, "read model rebuilt");
        return { blocks, seconds, swappedAt: swapped.block, rows: swapped.rows };
      }
    }
  } finally {
    await shadow.close();
    await pool.query(`DROP SCHEMA IF EXISTS ${REINDEX_SCHEMA} CASCADE`).catch(() => undefined);
  }
}

/**
 * Swaps the rebuilt rows in, in one transaction, when the copy's block is at or past the live
 * cursor's; undefined (nothing changed) when the live indexer is ahead, or the locks were not
 * had within 5 s (the live indexer mid-step): the caller catches up and tries again.
 */
async function swapIn(
  pool: Database["pool"],
): Promise<{ block: number; rows: Record<string, number> } | undefined> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query(`SET LOCAL lock_timeout = '5s'`);
    try {
      await client.query(
        `LOCK TABLE ${REINDEXED_TABLES.map((t) => `public.${t}`).join(", ")} IN ACCESS EXCLUSIVE MODE`,
      );
    } catch {
      await client.query("ROLLBACK");
      return undefined;
    }
    const cursorOf = async (schema: string) =>
      Number(
        (
          await client.query<{ n: string }>(
            `SELECT block_number::text AS n FROM ${schema}.indexer_cursor LIMIT 1`,
          )
        ).rows[0]?.n ?? -1,
      );
    const live = await cursorOf("public");
    const rebuilt = await cursorOf(REINDEX_SCHEMA);
    if (rebuilt < live) {
      await client.query("ROLLBACK");
      return undefined;
    }
    await client.query(`TRUNCATE ${REINDEXED_TABLES.map((t) => `public.${t}`).join(", ")}`);
    const rows: Record<string, number> = {};
    for (const table of REINDEXED_TABLES) {
      const copied = await client.query(
        `INSERT INTO public.${table} SELECT * FROM ${REINDEX_SCHEMA}.${table}`,
      );
      rows[table] = copied.rowCount ?? 0;
    }
    // Events of blocks only the rebuild indexed: the live outbox gets them (released as usual).
    await client.query(
      `INSERT INTO public.webhook_events (id, org_id, kind, block_number, block_hash, tx_hash,
                                         log_index, payload, status, created_at, released_at)
         SELECT id, org_id, kind, block_number, block_hash, tx_hash, log_index, payload, 'pending', created_at, NULL
           FROM ${REINDEX_SCHEMA}.webhook_events WHERE block_number > $1
       ON CONFLICT (id) DO NOTHING`,
      [live],
    );
    await client.query("COMMIT");
    return { block: rebuilt, rows };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
