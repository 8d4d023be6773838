import type pg from "pg";
import { bindMintsMetadata } from "../metadata/bind-metadata.js";
import { cidFromParts } from "../metadata/cid-text.js";
import type { StoredLog, StoredLogOf } from "./stored-log.js";

/** `live`: a newly read log (history rows too); `replay`: re-deriving state after a rollback. */
export type ApplyMode = "live" | "replay";

const ZERO = "0x0000000000000000000000000000000000000000";

/** Rows per `chain_logs` statement (9 parameters each; PostgreSQL allows 65,535). */
const CHAIN_LOG_ROWS_PER_STATEMENT = 1_000;

/**
 * Records newly read logs in `chain_logs` (the history every rollback replays from): one
 * statement per thousand logs, not one per log. Idempotent.
 */
export async function insertChainLogs(
  client: pg.ClientBase,
  logs: readonly StoredLog[],
): Promise<void> {
  for (let start = 0; start < logs.length; start += CHAIN_LOG_ROWS_PER_STATEMENT) {
    const chunk = logs.slice(start, start + CHAIN_LOG_ROWS_PER_STATEMENT);
    const params: unknown[] = [];
    const rows = chunk.map((log) => {
      const first = params.length + 1;
      params.push(
        log.blockNumber,
        log.logIndex,
        log.blockHash,
        log.txHash,
        log.blockTimestamp,
        log.kind,
        log.tokenId,
        log.listingId,
        log.args,
      );
      return `(${Array.from({ length: 9 }, (_, i) => `$${first + i}`).join(",")})`;
    });
    await client.query(
      `INSERT INTO chain_logs (block_number, log_index, block_hash, tx_hash, block_timestamp, kind, token_id, listing_id, args)
       VALUES ${rows.join(",")} ON CONFLICT DO NOTHING`,
      params,
    );
  }
}

/** Rows per multi-row statement of `applyLogs` (at most 12 parameters each). */
const ROWS_PER_STATEMENT = 1_000;

/**
 * Sends `INSERT INTO <head> VALUES <rows>` (with `tail`) for `rows` of parameters, a thousand rows
 * per statement.
 */
async function insertRows(
  client: pg.ClientBase,
  head: string,
  rows: ReadonlyArray<readonly unknown[]>,
  row: (first: number) => string,
  tail: string,
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const params: unknown[] = [];
    const values = rows.slice(start, start + ROWS_PER_STATEMENT).map((r) => {
      const first = params.length + 1;
      params.push(...r);
      return row(first);
    });
    await client.query(`INSERT INTO ${head} VALUES ${values.join(",")} ${tail}`, params);
  }
}

/**
 * Applies logs (in chain order) to the read model, in a few set-based statements for the bulk
 * of a block (issue 25: not six statements per mint):
 * - every mint's asset row in one statement, and the mints' metadata documents in three
 *   (`bindMintsMetadata`). A token's `AssetIssued` comes before all its other logs but its own
 *   mint `Transfer`, so inserting the mints first changes no result; that `Transfer` would set
 *   the owner the mint row already has, and is skipped;
 * - in `live` mode, the history rows (transfers, sales) in one statement each;
 * - the other logs one by one, in order.
 */
export async function applyLogs(
  client: pg.ClientBase,
  logs: readonly StoredLog[],
  mode: ApplyMode,
): Promise<void> {
  const mints = logs.filter((log): log is StoredLogOf<"AssetIssued"> => log.kind === "AssetIssued");
  await insertRows(
    client,
    `assets (token_id, type_id, owner, minter, stake_wei, cid, password_hash, mint_tx_hash, mint_block,
             minted_at, updated_block, updated_at)`,
    mints.map(({ args: a, txHash, blockNumber, blockTimestamp }) => [
      a.tokenId,
      a.typeId,
      a.owner,
      a.minter,
      a.stake,
      cidFromParts(a.cidDigest, Number(a.cidVersion), BigInt(a.cidCodec), Number(a.cidHashCode)),
      a.passwordHash,
      txHash,
      blockNumber,
      blockTimestamp,
    ]),
    (f) =>
      `($${f},$${f + 1},$${f + 2},$${f + 3},$${f + 4},$${f + 5},$${f + 6},$${f + 7},$${f + 8},to_timestamp($${f + 9}),$${f + 8},to_timestamp($${f + 9}))`,
    "ON CONFLICT (token_id) DO NOTHING",
  );
  await bindMintsMetadata(
    client,
    mints.map(({ args: a, txHash }) => ({ tokenId: a.tokenId, txHash, minter: a.minter })),
  );
  const minted = new Set(mints.map((m) => m.args.tokenId));
  if (mode === "live") {
    await insertRows(
      client,
      "transfers (block_number, log_index, tx_hash, token_id, from_address, to_address, transferred_at)",
      logs.flatMap((log) =>
        log.kind === "Transfer"
          ? [
              [
                log.blockNumber,
                log.logIndex,
                log.txHash,
                log.args.tokenId,
                log.args.from,
                log.args.to,
                log.blockTimestamp,
              ],
            ]
          : [],
      ),
      (f) => `($${f},$${f + 1},$${f + 2},$${f + 3},$${f + 4},$${f + 5},to_timestamp($${f + 6}))`,
      "ON CONFLICT DO NOTHING",
    );
    await insertRows(
      client,
      "sales (block_number, log_index, tx_hash, listing_id, token_id, seller, buyer, price_wei, sold_at)",
      logs.flatMap((log) =>
        log.kind === "ListingSold"
          ? [
              [
                log.blockNumber,
                log.logIndex,
                log.txHash,
                log.args.listingId,
                log.args.tokenId,
                log.args.seller,
                log.args.buyer,
                log.args.price,
                log.blockTimestamp,
              ],
            ]
          : [],
      ),
      (f) =>
        `($${f},$${f + 1},$${f + 2},$${f + 3},$${f + 4},$${f + 5},$${f + 6},$${f + 7},to_timestamp($${f + 8}))`,
      "ON CONFLICT DO NOTHING",
    );
  }
  for (const log of logs) {
    if (log.kind === "AssetIssued") continue;
    if (log.kind === "Transfer" && log.args.from === ZERO && minted.has(log.args.tokenId)) continue;
    await applyLog(client, log);
  }
}

/**
 * Applies one log to the derived tables (assets, listings, asset types, allowlist, market state),
 * after `applyLogs` wrote the block's mints and history rows. Every statement is idempotent, so
 * replaying a token's whole history after a rollback rebuilds exactly its current row.
 */
async function applyLog(client: pg.ClientBase, log: StoredLog): Promise<void> {
  const { kind, args: a } = log;
  const at = log.blockTimestamp;
  switch (kind) {
    case "AssetTypeRegistered":
      await client.query(
        `INSERT INTO asset_types (type_id, type_index, name, registrar, tx_hash, block_number, registered_at)
         VALUES ($1,$2,$3,$4,$5,$6,to_timestamp($7)) ON CONFLICT (type_id) DO NOTHING`,
        [a.typeId, Number(a.index), a.name, a.registrar, log.txHash, log.blockNumber, at],
      );
      return;
    case "AssetIssued": // inserted, with its metadata, by applyLogs
      return;
    case "Transfer":
      await client.query(
        `UPDATE assets SET owner = $2, redeemed = (redeemed OR $2 = '${ZERO}'), updated_block = $3, updated_at = to_timestamp($4)
         WHERE token_id = $1`,
        [a.tokenId, a.to, log.blockNumber, at],
      );
      return;
    case "AssetRedeemed":
      await client.query(
        `UPDATE assets SET redeemed = true, owner = '${ZERO}', updated_block = $2, updated_at = to_timestamp($3) WHERE token_id = $1`,
        [a.tokenId, log.blockNumber, at],
      );
      return;
    case "MetadataUpdate":
      await client.query(
        `UPDATE assets SET updated_block = $2, updated_at = to_timestamp($3) WHERE token_id = $1`,
        [a.tokenId, log.blockNumber, at],
      );
      return;
    case "BatchMetadataUpdate": // setBaseURI: every token's URI changed, no row holds it
      return;
    case "ListingCreated":
      await client.query(
        `INSERT INTO listings (listing_id, token_id, seller, price_wei, state, listed_at, expires_at, create_tx_hash,
                               created_block, updated_block)
         VALUES ($1,$2,$3,$4,'active',to_timestamp($5),to_timestamp($6),$7,$8,$8) ON CONFLICT (listing_id) DO NOTHING`,
        [
          a.listingId,
          a.tokenId,
          a.seller,
          a.price,
          at,
          Number(a.expiresAt),
          log.txHash,
          log.blockNumber,
        ],
      );
      return;
    case "ListingPriceUpdated":
      await client.query(
        `UPDATE listings SET price_wei = $2, updated_block = $3 WHERE listing_id = $1`,
        [a.listingId, a.newPrice, log.blockNumber],
      );
      return;
    case "ListingSold":
      await closeListing(client, log, a.listingId, "sold", a.buyer);
      return;
    case "ListingCancelled":
      await closeListing(client, log, a.listingId, "cancelled", null);
      return;
    case "ListingReclaimed":
      await closeListing(client, log, a.listingId, "expired", null);
      return;
    case "AssetFrozen":
    case "AssetUnfrozen":
      await client.query(
        `UPDATE assets SET frozen = $2, frozen_reason = $3, updated_block = $4, updated_at = to_timestamp($5)
         WHERE token_id = $1`,
        [
          a.tokenId,
          kind === "AssetFrozen",
          kind === "AssetFrozen" ? a.reason : null,
          log.blockNumber,
          at,
        ],
      );
      return;
    case "AssetForcedTransfer": // the token's own Transfer (logged just before) moves the owner
      return;
    case "AssetTypeRestrictionSet":
      await client.query(`UPDATE asset_types SET restricted = $2 WHERE type_id = $1`, [
        a.typeId,
        a.restricted === "true",
      ]);
      return;
    case "AllowlistUpdated":
      if (a.allowed === "true") {
        await client.query(
          `INSERT INTO allowlist (address, tx_hash, block_number, added_at) VALUES ($1,$2,$3,to_timestamp($4))
           ON CONFLICT (address) DO NOTHING`,
          [a.account, log.txHash, log.blockNumber, at],
        );
      } else {
        await client.query(`DELETE FROM allowlist WHERE address = $1`, [a.account]);
      }
      return;
    case "MarketPaused":
    case "MarketResumed":
      await client.query(
        `INSERT INTO market_state (id, paused, reason, changed_by, tx_hash, block_number, changed_at)
         VALUES ('market',$1,$2,$3,$4,$5,to_timestamp($6))
         ON CONFLICT (id) DO UPDATE SET paused = $1, reason = $2, changed_by = $3, tx_hash = $4,
           block_number = $5, changed_at = to_timestamp($6)`,
        [kind === "MarketPaused", a.reason, a.by, log.txHash, log.blockNumber, at],
      );
      return;
    default: {
      // An indexed event with no case above is a type error here.
      const unhandled: never = kind;
      void unhandled;
    }
  }
}

async function closeListing(
  client: pg.ClientBase,
  log: StoredLog,
  listingId: string,
  state: string,
  buyer: string | null,
) {
  await client.query(
    `UPDATE listings SET state = $2, buyer = $3, closed_at = to_timestamp($4), close_tx_hash = $5, updated_block = $6
     WHERE listing_id = $1`,
    [listingId, state, buyer, log.blockTimestamp, log.txHash, log.blockNumber],
  );
}
