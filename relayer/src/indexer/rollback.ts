import type pg from "pg";
import { applyLogs } from "./apply-log.js";
import type { IndexedEventName, StoredLog } from "./stored-log.js";

interface ChainLogRow {
  block_number: string;
  log_index: number;
  block_hash: string;
  tx_hash: string;
  block_timestamp: string;
  kind: IndexedEventName;
  token_id: string | null;
  listing_id: string | null;
  /** `StoredLog["args"]` of `kind`, as `insertChainLogs` wrote it. */
  args: Record<string, string>;
}

/** A `chain_logs` row as the log it was written from (`insertChainLogs`). */
function storedLogOf(row: ChainLogRow): StoredLog {
  return {
    blockNumber: Number(row.block_number),
    logIndex: row.log_index,
    blockHash: row.block_hash,
    txHash: row.tx_hash,
    blockTimestamp: Number(row.block_timestamp),
    kind: row.kind,
    tokenId: row.token_id,
    listingId: row.listing_id,
    args: row.args,
  } as StoredLog;
}

/** Logs of contract-wide state (no token or listing): replayed whole after a rollback. */
const CONTRACT_STATE_KINDS: readonly IndexedEventName[] = [
  "AssetTypeRestrictionSet",
  "AllowlistUpdated",
  "MarketPaused",
  "MarketResumed",
];

/**
 * Rolls the read model back to `ancestor` (inclusive) on the caller's transaction: deletes every
 * history row above it, deletes the unreleased webhook events of the vanished blocks (so they
 * are never emitted), then rebuilds the tokens and listings those blocks touched by replaying
 * their remaining logs.
 *
 * @returns how many tokens and listings were rebuilt
 */
export async function rollbackTo(
  client: pg.ClientBase,
  ancestor: number,
): Promise<{ tokens: number; listings: number }> {
  const touched = await client.query<{ token_ids: string[] | null; listing_ids: string[] | null }>(
    `SELECT array_agg(DISTINCT token_id::text) FILTER (WHERE token_id IS NOT NULL) AS token_ids,
            array_agg(DISTINCT listing_id::text) FILTER (WHERE listing_id IS NOT NULL) AS listing_ids
     FROM chain_logs WHERE block_number > $1`,
    [ancestor],
  );
  const tokenIds = touched.rows[0]?.token_ids ?? [];
  const listingIds = touched.rows[0]?.listing_ids ?? [];
  for (const table of ["chain_logs", "transfers", "sales", "asset_types"]) {
    await client.query(`DELETE FROM ${table} WHERE block_number > $1`, [ancestor]);
  }
  await client.query(`DELETE FROM indexed_blocks WHERE number > $1`, [ancestor]);
  await client.query(`DELETE FROM webhook_events WHERE status = 'pending' AND block_number > $1`, [
    ancestor,
  ]);
  await client.query(`DELETE FROM assets WHERE token_id = ANY($1::numeric[])`, [tokenIds]);
  await client.query(`DELETE FROM listings WHERE listing_id = ANY($1::numeric[])`, [listingIds]);
  const { rows } = await client.query<ChainLogRow>(
    `SELECT * FROM chain_logs WHERE token_id = ANY($1::numeric[]) OR listing_id = ANY($2::numeric[])
     ORDER BY block_number, log_index`,
    [tokenIds, listingIds],
  );
  await applyLogs(client, rows.map(storedLogOf), "replay");
  // The allowlist, type restrictions and the pause: rebuilt from their remaining logs (few).
  await client.query(`DELETE FROM allowlist; DELETE FROM market_state`);
  await client.query(`UPDATE asset_types SET restricted = false WHERE restricted`);
  const state = await client.query<ChainLogRow>(
    `SELECT * FROM chain_logs WHERE kind = ANY($1::text[]) ORDER BY block_number, log_index`,
    [CONTRACT_STATE_KINDS],
  );
  await applyLogs(client, state.rows.map(storedLogOf), "replay");
  return { tokens: tokenIds.length, listings: listingIds.length };
}
