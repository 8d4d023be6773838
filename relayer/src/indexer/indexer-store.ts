import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { inTransaction, type Database } from "../db/client.js";
import { insertOutboxEvents } from "../webhooks/outbox.js";
import { releaseConfirmedEvents } from "../webhooks/release-events.js";
import { enqueuePins, unpinnedCids } from "../metadata/pin-queue.js";
import { applyLogs, insertChainLogs } from "./apply-log.js";
import type { BlockEvent } from "./block-event.js";
import type { Cursor, StoredBlockLookup } from "./chain-sync.js";
import { rollbackTo } from "./rollback.js";
import { TxStore } from "../engine/tx-store.js";
import type { TxState } from "../engine/tx-lifecycle.js";
import { webhookEventsForLogs } from "./webhook-events.js";

/** States in which a write has been answered (its reorg changes an answer already given). */
const FINAL_ANSWERS: readonly TxState[] = ["confirmed", "failed"];

const CURSOR_ID = "main";
/** `settings` key naming the deployment the read model was indexed from. */
const DEPLOYMENT_KEY = "indexer_deployment";
const BIND_LOCK_ID = 0x7277_6962; // "rwib"
/** Headers kept for reorg detection and the average block time. */
const KEEP_BLOCKS = 2_000;

/**
 * Work another concern does inside the indexer's transaction of each block event, after the
 * read model is written (the wallet balance watch, `indexer/balance-watch.ts`). A hook that
 * throws fails the whole event, which the indexer then retries.
 */
export interface IndexerHook {
  onBlock(client: pg.ClientBase, event: Extract<BlockEvent, { type: "block" }>): Promise<void>;
  /** After the read model was rolled back to `ancestor`. */
  onReorg(client: pg.ClientBase, ancestor: number): Promise<void>;
}

/** Another process moved the cursor under us (lost leadership): stop and re-check the lock. */
export class CursorMovedError extends Error {
  override name = "CursorMovedError";
}

/**
 * The indexer's database side: the cursor, the stored headers, and applying block events
 * atomically (read-model rows, outbox events and cursor in one transaction).
 */
export class IndexerStore implements StoredBlockLookup {
  constructor(
    private readonly database: Database,
    private readonly boss: PgBoss,
    private readonly marketplace: string,
    private readonly hooks: readonly IndexerHook[] = [],
  ) {}

  /** The cursor, or undefined before the first run. */
  async cursor(): Promise<Cursor | undefined> {
    const { rows } = await this.database.pool.query<{ block_number: string; block_hash: string }>(
      `SELECT block_number, block_hash FROM indexer_cursor WHERE id = $1`,
      [CURSOR_ID],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : { number: Number(row.block_number), hash: row.block_hash };
  }

  /**
   * Binds the read model to one deployment of the contracts. When the record names other
   * contracts than the ones indexed so far (the local `npm start` redeploys when the ABI changed,
   * on the same chain and database), the read model of the old contracts is emptied, so the new
   * contracts' token and listing ids, which start at 1 again, are not mistaken for the old ones;
   * the indexer then starts again from the new deployment block. Organizations, keys, webhooks
   * and transaction records are kept. A database from before this binding was recorded counts as
   * stale when its cursor stands before the deployment block (the cursor starts at the block
   * before the deployment and only moves on, so only a later redeployment explains that).
   *
   * @returns whether the read model was emptied
   */
  async bindDeployment(contracts: {
    assetTypeRegistry: string;
    assetToken: string;
    marketplace: string;
    deployBlock: number;
  }): Promise<boolean> {
    const id = [contracts.assetTypeRegistry, contracts.assetToken, contracts.marketplace]
      .map((a) => a.toLowerCase())
      .join(",")
      .concat(`@${contracts.deployBlock}`);
    return this.#inTransaction(async (client) => {
      // Serialises processes binding at the same moment (the row may not exist yet).
      await client.query(`SELECT pg_advisory_xact_lock($1)`, [BIND_LOCK_ID]);
      const { rows } = await client.query<{ value: string }>(
        `SELECT value FROM settings WHERE key = $1`,
        [DEPLOYMENT_KEY],
      );
      const bound = rows[0]?.value;
      if (bound === id) return false;
      let stale = bound !== undefined;
      if (bound === undefined) {
        const cursor = await client.query<{ block_number: string }>(
          `SELECT block_number FROM indexer_cursor WHERE id = $1`,
          [CURSOR_ID],
        );
        const at = cursor.rows[0]?.block_number;
        stale = at !== undefined && Number(at) < contracts.deployBlock - 1;
      }
      if (stale) {
        await client.query(
          `DELETE FROM chain_logs; DELETE FROM assets; DELETE FROM transfers; DELETE FROM listings;
           DELETE FROM sales; DELETE FROM asset_types; DELETE FROM indexed_blocks; DELETE FROM indexer_cursor;
           DELETE FROM allowlist; DELETE FROM market_state;`,
        );
      }
      await client.query(
        `INSERT INTO settings (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [DEPLOYMENT_KEY, id],
      );
      return stale;
    });
  }

  /** Sets the starting cursor (the block before the deployment) if none exists. */
  async initCursor(start: {
    number: number;
    hash: string;
    parentHash: string;
    timestamp: number;
  }): Promise<void> {
    await this.database.pool.query(
      `WITH c AS (INSERT INTO indexer_cursor (id, block_number, block_hash) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING 1)
       INSERT INTO indexed_blocks (number, hash, parent_hash, timestamp) SELECT $2, $3, $4, $5 FROM c ON CONFLICT DO NOTHING`,
      [CURSOR_ID, start.number, start.hash, start.parentHash, start.timestamp],
    );
  }

  async storedHashes(from: number, to: number): Promise<Map<number, string>> {
    const { rows } = await this.database.pool.query<{ number: string; hash: string }>(
      `SELECT number, hash FROM indexed_blocks WHERE number BETWEEN $1 AND $2`,
      [from, to],
    );
    return new Map(rows.map((r) => [Number(r.number), r.hash]));
  }

  #inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.database, fn);
  }

  async #moveCursor(client: pg.ClientBase, from: Cursor, to: Cursor): Promise<void> {
    const { rowCount } = await client.query(
      `UPDATE indexer_cursor SET block_number = $2, block_hash = $3, updated_at = now()
       WHERE id = $1 AND block_number = $4 AND block_hash = $5`,
      [CURSOR_ID, to.number, to.hash, from.number, from.hash],
    );
    if (rowCount !== 1) throw new CursorMovedError("indexer cursor moved by another process");
  }

  /**
   * Applies one block event in its own transaction and returns the new cursor.
   * The cursor update is a compare-and-set, so two processes can never both apply a range.
   */
  async apply(
    event: BlockEvent,
    cursor: Cursor,
  ): Promise<{
    cursor: Cursor;
    webhookEvents: number;
    deliveries: number;
    /** Transaction rows a reorg put back to `sent`. */
    reopened: Array<{ id: string; walletId: string; blockNumber: number }>;
    /**
     * Of those, how many had already been answered as final (`confirmed` or `failed`): a reorg
     * that drops one went deeper than CONFIRMATIONS as the engine counted them, even when this
     * indexer had not yet read as far as the engine's head.
     */
    answeredReopened: number;
  }> {
    return this.#inTransaction(async (client) => {
      switch (event.type) {
        case "block": {
          for (const h of event.headers) {
            await client.query(
              `INSERT INTO indexed_blocks (number, hash, parent_hash, timestamp) VALUES ($1,$2,$3,$4)
               ON CONFLICT (number) DO UPDATE SET hash = EXCLUDED.hash, parent_hash = EXCLUDED.parent_hash, timestamp = EXCLUDED.timestamp`,
              [h.number, h.hash, h.parentHash, h.timestamp],
            );
          }
          // A write confirmed in a block that a reorg replaced before we read it goes back to sent.
          const reopened = await TxStore.reopenReorged(client, { canonical: event.headers });
          await insertChainLogs(client, event.logs);
          await applyLogs(client, event.logs, "live");
          const minted = event.logs.flatMap((l) =>
            l.kind === "AssetIssued" && l.tokenId !== null ? [l.tokenId] : [],
          );
          await enqueuePins(this.boss, await unpinnedCids(client, minted), client);
          const outbox = await webhookEventsForLogs(client, event.logs, this.marketplace);
          await insertOutboxEvents(client, outbox);
          for (const hook of this.hooks) await hook.onBlock(client, event);
          await client.query(`DELETE FROM indexed_blocks WHERE number < $1`, [
            event.last.number - KEEP_BLOCKS,
          ]);
          const next = { number: event.last.number, hash: event.last.hash };
          await this.#moveCursor(client, cursor, next);
          return {
            cursor: next,
            webhookEvents: outbox.length,
            deliveries: 0,
            reopened,
            answeredReopened: 0,
          };
        }
        case "reorg": {
          const answeredReopened = await answeredAbove(client, event.ancestor.number);
          await rollbackTo(client, event.ancestor.number);
          for (const hook of this.hooks) await hook.onReorg(client, event.ancestor.number);
          // The transaction rows follow the read model: their writes are broadcast again.
          const reopened = await TxStore.reopenReorged(client, { ancestor: event.ancestor.number });
          await this.#moveCursor(client, cursor, event.ancestor);
          return {
            cursor: event.ancestor,
            webhookEvents: 0,
            deliveries: 0,
            reopened,
            answeredReopened,
          };
        }
        case "finalize": {
          const deliveries = await releaseConfirmedEvents(client, this.boss, event.blockNumber);
          return { cursor, webhookEvents: 0, deliveries, reopened: [], answeredReopened: 0 };
        }
      }
    });
  }
}

/** Writes answered as final (`confirmed`, `failed`) whose receipt block is above `ancestor`. */
async function answeredAbove(client: pg.ClientBase, ancestor: number): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM transactions
      WHERE state = ANY($2::text[]) AND receipt IS NOT NULL
        AND (receipt->>'blockNumber')::bigint > $1`,
    [ancestor, [...FINAL_ANSWERS]],
  );
  return rows[0]?.n ?? 0;
}
