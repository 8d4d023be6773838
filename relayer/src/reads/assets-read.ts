import { checksumAddress } from "../domain/address.js";
import { weiToDecimal } from "../domain/amount.js";
import type { AssetRecord } from "../domain/asset.js";
import type { Database } from "../db/client.js";
import { NotFoundError } from "../errors.js";
import { coalescedLookup, coalescedRead } from "./coalesced-read.js";
import { parseMetadataDocument } from "./metadata-document.js";
import { decodePageCursor, encodePageCursor, type Page } from "../shared/cursor.js";

const ZERO = "0x0000000000000000000000000000000000000000";

/** Filters of `GET /api/v1/assets`. */
export interface AssetFilters {
  limit: number;
  cursor?: string | undefined;
  owner?: string | undefined;
  assetType?: string | undefined;
  /** Held by this address: owned, or in marketplace escrow under its active listing. */
  holder?: string | undefined;
}

interface AssetRow {
  token_id: string;
  type_name: string | null;
  owner: string;
  minter: string;
  stake_wei: string;
  cid: string;
  password_hash: string;
  mint_tx_hash: string;
  mint_block: string;
  minted_at: string;
  updated_at: string;
  redeemed: boolean;
  frozen: boolean;
  frozen_reason: string | null;
  restricted: boolean | null;
  json: string | null;
  metadata_cid: string | null;
  metadata_pinned: boolean | null;
  listing_id: string | null;
  listing_price: string | null;
  listing_expires: string | null;
}

/** ISO 8601 text straight from PostgreSQL: no Date objects per row on the hot read path. */
const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const SELECT = `
  SELECT a.token_id::text, t.name AS type_name, a.owner, a.minter, a.stake_wei::text, a.cid, a.password_hash,
         a.mint_tx_hash, a.mint_block, ${iso("a.minted_at")} AS minted_at, ${iso("a.updated_at")} AS updated_at, a.redeemed, a.frozen, a.frozen_reason, t.restricted, m.json, m.cid AS metadata_cid,
         m.pinned_at IS NOT NULL AS metadata_pinned,
         l.listing_id::text AS listing_id, l.price_wei::text AS listing_price, ${iso("l.expires_at")} AS listing_expires
  FROM assets a
  LEFT JOIN asset_types t ON t.type_id = a.type_id
  LEFT JOIN token_metadata m ON m.token_id = a.token_id AND m.mint_tx_hash = a.mint_tx_hash
  LEFT JOIN LATERAL (SELECT listing_id, price_wei, expires_at FROM listings
                     WHERE token_id = a.token_id AND state = 'active' AND expires_at > now()
                     ORDER BY listing_id DESC LIMIT 1) l ON true`;

function toRecord(row: AssetRow): AssetRecord {
  const doc = parseMetadataDocument(row.json);
  return {
    tokenId: row.token_id,
    assetType: row.type_name,
    name: doc?.name ?? null,
    description: doc?.description ?? null,
    image: doc?.image ?? null,
    externalUrl: doc?.external_url ?? null,
    ipfsHash: row.cid,
    metadataCid: row.metadata_cid,
    metadataPinned: row.metadata_cid === null ? null : row.metadata_pinned === true,
    stakedAmount: weiToDecimal(row.stake_wei),
    stakedAmountWei: row.stake_wei,
    owner: checksumAddress(row.owner),
    minter: checksumAddress(row.minter),
    hasPassword: !/^0x0*$/.test(row.password_hash),
    listing:
      row.listing_id === null
        ? null
        : {
            listingId: row.listing_id,
            priceInCOIN: weiToDecimal(row.listing_price ?? "0"),
            price: weiToDecimal(row.listing_price ?? "0"),
            priceWei: row.listing_price ?? "0",
            expiresAt: row.listing_expires ?? new Date(0).toISOString(),
          },
    mintTxHash: row.mint_tx_hash,
    mintBlock: Number(row.mint_block),
    mintedAt: row.minted_at,
    updatedAt: row.updated_at,
    redeemed: row.redeemed || row.owner === ZERO,
    frozen: row.frozen,
    frozenReason: row.frozen ? row.frozen_reason : null,
    restricted: row.restricted === true,
  };
}

/**
 * One asset by token id, from the indexed read model. Look-ups that arrive while another waits
 * for a pool connection share its statement (`coalescedLookup`).
 *
 * @param tokenId a canonical decimal (no leading zeros), as the route's schema demands
 * @throws NotFoundError `Asset not found`
 */
export async function getAsset(database: Database, tokenId: string): Promise<AssetRecord> {
  const record = await coalescedLookup(database, "assets-by-ids", tokenId, async (client, ids) => {
    const { rows } = await client.query<AssetRow>({
      name: "assets-by-ids",
      text: `${SELECT} WHERE a.token_id = ANY($1::numeric[])`,
      values: [ids],
    });
    // Ids are canonical decimals (no leading zeros), as `token_id::text` prints them.
    return new Map(rows.map((row) => [row.token_id, toRecord(row)]));
  });
  if (record === undefined) throw new NotFoundError("Asset not found");
  return record;
}

/**
 * Assets, newest first (token id descending), with keyset pagination and optional filters on
 * the current owner and the asset type name (exact, case-sensitive).
 */
export async function listAssets(
  database: Database,
  filters: AssetFilters,
): Promise<Page<AssetRecord>> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (filters.cursor !== undefined) {
    values.push(decodePageCursor(filters.cursor));
    where.push(`a.token_id < $${values.length}::numeric`);
  }
  if (filters.owner !== undefined) {
    values.push(filters.owner.toLowerCase());
    where.push(`a.owner = $${values.length}`);
  }
  if (filters.holder !== undefined) {
    values.push(filters.holder.toLowerCase());
    where.push(
      `(a.owner = $${values.length} OR EXISTS (SELECT 1 FROM listings h WHERE h.token_id = a.token_id AND h.state = 'active' AND h.seller = $${values.length}))`,
    );
  }
  if (filters.assetType !== undefined) {
    values.push(filters.assetType);
    where.push(`a.type_id IN (SELECT type_id FROM asset_types WHERE name = $${values.length})`);
  }
  values.push(filters.limit + 1);
  const text = `${SELECT} ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY a.token_id DESC LIMIT $${values.length}`;
  // Named statement per filter combination: PostgreSQL keeps the plan (planning costs more than running it).
  const name = `assets-list-${filters.cursor !== undefined ? "c" : ""}${filters.owner !== undefined ? "o" : ""}${filters.holder !== undefined ? "h" : ""}${filters.assetType !== undefined ? "t" : ""}`;
  return coalescedRead(database, `${name}:${JSON.stringify(values)}`, async (client) => {
    const { rows } = await client.query<AssetRow>({ name, text, values });
    const page = rows.slice(0, filters.limit).map(toRecord);
    const last = page.at(-1);
    return {
      data: page,
      nextCursor:
        rows.length > filters.limit && last !== undefined ? encodePageCursor(last.tokenId) : null,
    };
  });
}
