import type pg from "pg";
import { bindMintMetadata } from "../metadata/bind-metadata.js";
import { cidFromParts } from "./cid.js";
import type { StoredLog } from "./stored-log.js";

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

/**
 * Applies one log to the derived tables (assets, listings, asset types) and, in `live` mode, to
 * the history tables (transfers, sales; `chain_logs` is written by `insertChainLogs` first). Every statement is idempotent, so replaying
 * a token's whole history after a rollback rebuilds exactly its current row.
 */
export async function applyLog(
  client: pg.ClientBase,
  log: StoredLog,
  mode: ApplyMode,
): Promise<void> {
  const a = log.args;
  const at = log.blockTimestamp;
  switch (log.kind) {
    case "AssetTypeRegistered":
      await client.query(
        `INSERT INTO asset_types (type_id, type_index, name, registrar, tx_hash, block_number, registered_at)
         VALUES ($1,$2,$3,$4,$5,$6,to_timestamp($7)) ON CONFLICT (type_id) DO NOTHING`,
        [a.typeId, Number(a.index), a.name, a.registrar, log.txHash, log.blockNumber, at],
      );
      return;
    case "AssetIssued": {
      const cid = cidFromParts(
        a.cidDigest!,
        Number(a.cidVersion),
        BigInt(a.cidCodec!),
        Number(a.cidHashCode),
      );
      await client.query(
        `INSERT INTO assets (token_id, type_id, owner, minter, stake_wei, cid, password_hash, mint_tx_hash, mint_block,
                             minted_at, updated_block, updated_at)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,to_timestamp($10),$9,to_timestamp($10))
         ON CONFLICT (token_id) DO NOTHING`,
        [
          a.tokenId,
          a.typeId,
          a.owner,
          a.minter,
          a.stake,
          cid,
          a.passwordHash,
          log.txHash,
          log.blockNumber,
          at,
        ],
      );
      await bindMintMetadata(client, {
        tokenId: a.tokenId!,
        txHash: log.txHash,
        minter: a.minter!,
      });
      return;
    }
    case "Transfer":
      if (mode === "live") {
        await client.query(
          `INSERT INTO transfers (block_number, log_index, tx_hash, token_id, from_address, to_address, transferred_at)
           VALUES ($1,$2,$3,$4,$5,$6,to_timestamp($7)) ON CONFLICT DO NOTHING`,
          [log.blockNumber, log.logIndex, log.txHash, a.tokenId, a.from, a.to, at],
        );
      }
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
    case "BatchMetadataUpdate":
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
      if (mode === "live") {
        await client.query(
          `INSERT INTO sales (block_number, log_index, tx_hash, listing_id, token_id, seller, buyer, price_wei, sold_at)
           VALUES ($1,$2,$3,$4,$5,$6,$7,$8,to_timestamp($9)) ON CONFLICT DO NOTHING`,
          [
            log.blockNumber,
            log.logIndex,
            log.txHash,
            a.listingId,
            a.tokenId,
            a.seller,
            a.buyer,
            a.price,
            at,
          ],
        );
      }
      await closeListing(client, log, "sold", a.buyer ?? null);
      return;
    case "ListingCancelled":
      await closeListing(client, log, "cancelled", null);
      return;
    case "ListingReclaimed":
      await closeListing(client, log, "expired", null);
      return;
  }
}

async function closeListing(
  client: pg.ClientBase,
  log: StoredLog,
  state: string,
  buyer: string | null,
) {
  await client.query(
    `UPDATE listings SET state = $2, buyer = $3, closed_at = to_timestamp($4), close_tx_hash = $5, updated_block = $6
     WHERE listing_id = $1`,
    [log.args.listingId, state, buyer, log.blockTimestamp, log.txHash, log.blockNumber],
  );
}
