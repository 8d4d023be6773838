import { checksumAddress } from "../domain/address.js";
import { weiToDecimal } from "../domain/amount.js";
import type { ListingRecord, ListingState } from "../domain/listing.js";
import type { Database } from "../db/client.js";
import { NotFoundError } from "../errors.js";
import { coalescedRead } from "./coalesced-read.js";
import { decodePageCursor, encodePageCursor, type Page } from "../shared/cursor.js";

/** Filters of `GET /api/v1/marketplace`. */
export interface ListingFilters {
  limit: number;
  cursor?: string | undefined;
  state?: ListingState | undefined;
  seller?: string | undefined;
  tokenId?: string | undefined;
}

interface ListingRow {
  listing_id: string;
  token_id: string;
  seller: string;
  buyer: string | null;
  price_wei: string;
  state: string;
  listed_at: Date;
  expires_at: Date;
  closed_at: Date | null;
  create_tx_hash: string;
  close_tx_hash: string | null;
  effective_state: ListingState;
}

const SELECT = `
  SELECT listing_id::text, token_id::text, seller, buyer, price_wei::text, state, listed_at, expires_at, closed_at,
         create_tx_hash, close_tx_hash,
         CASE WHEN state = 'active' AND expires_at <= now() THEN 'expired' ELSE state END AS effective_state
  FROM listings`;

const DAY_MS = 86_400_000;

function toRecord(row: ListingRow): ListingRecord {
  const closedAt = row.closed_at?.toISOString() ?? null;
  const price = weiToDecimal(row.price_wei);
  return {
    listingId: row.listing_id,
    tokenId: row.token_id,
    seller: checksumAddress(row.seller),
    buyer: row.buyer === null ? null : checksumAddress(row.buyer),
    priceInCOIN: price,
    price,
    priceWei: row.price_wei,
    durationDays: Math.round((row.expires_at.getTime() - row.listed_at.getTime()) / DAY_MS),
    state: row.effective_state,
    listedAt: row.listed_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    soldAt: row.state === "sold" ? closedAt : null,
    closedAt,
    txHash: row.create_tx_hash,
    closeTxHash: row.close_tx_hash,
  };
}

/**
 * One listing by id.
 *
 * @throws NotFoundError `Listing not found`
 */
export async function getListing(database: Database, listingId: string): Promise<ListingRecord> {
  const record = await coalescedRead(database, `listing-by-id:${listingId}`, async (client) => {
    const { rows } = await client.query<ListingRow>({
      name: "listing-by-id",
      text: `${SELECT} WHERE listings.listing_id = $1`,
      values: [listingId],
    });
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  });
  if (record === undefined) throw new NotFoundError("Listing not found");
  return record;
}

/** Listings, newest first, with keyset pagination and filters on state, seller and token. */
export async function listListings(
  database: Database,
  filters: ListingFilters,
): Promise<Page<ListingRecord>> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (clause: (n: number) => string, value: unknown) => {
    values.push(value);
    where.push(clause(values.length));
  };
  if (filters.cursor !== undefined)
    add((n) => `listings.listing_id < $${n}::numeric`, decodePageCursor(filters.cursor));
  if (filters.seller !== undefined) add((n) => `seller = $${n}`, filters.seller.toLowerCase());
  if (filters.tokenId !== undefined)
    add((n) => `listings.token_id = $${n}::numeric`, filters.tokenId);
  switch (filters.state) {
    case "active":
      where.push(`state = 'active' AND expires_at > now()`);
      break;
    case "expired":
      where.push(`(state = 'expired' OR (state = 'active' AND expires_at <= now()))`);
      break;
    case "sold":
    case "cancelled":
      add((n) => `listings.state = $${n}`, filters.state);
      break;
    case undefined:
      break;
  }
  values.push(filters.limit + 1);
  const text = `${SELECT} ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY listings.listing_id DESC LIMIT $${values.length}`;
  const name = `listings-list-${filters.cursor !== undefined ? "c" : ""}${filters.seller !== undefined ? "s" : ""}${filters.tokenId !== undefined ? "t" : ""}-${filters.state ?? "all"}`;
  return coalescedRead(database, `${name}:${JSON.stringify(values)}`, async (client) => {
    const { rows } = await client.query<ListingRow>({ name, text, values });
    const page = rows.slice(0, filters.limit).map(toRecord);
    const last = page.at(-1);
    return {
      data: page,
      nextCursor:
        rows.length > filters.limit && last !== undefined ? encodePageCursor(last.listingId) : null,
    };
  });
}
