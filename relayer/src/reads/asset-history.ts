import type { Database } from "../db/client.js";
import { NotFoundError } from "../errors.js";
import { checksumAddress } from "../domain/address.js";
import { weiToDecimal } from "../domain/amount.js";
import type { AssetHistoryEvent } from "../domain/activity.js";

export type { AssetHistoryEvent };

const EVENT_NAMES: Readonly<Record<string, string>> = {
  AssetIssued: "issued",
  Transfer: "transferred",
  AssetRedeemed: "redeemed",
  MetadataUpdate: "metadata-updated",
  ListingCreated: "listed",
  ListingPriceUpdated: "price-changed",
  ListingSold: "sold",
  ListingCancelled: "delisted",
  ListingReclaimed: "reclaimed",
};

interface Row {
  block_number: string;
  log_index: number;
  tx_hash: string;
  block_timestamp: string;
  kind: string;
  listing_id: string | null;
  args: Record<string, string>;
}

const address = (value: string | undefined): string | null =>
  value === undefined ? null : checksumAddress(value.toLowerCase());

/**
 * Every indexed event of one token (its own logs and those of its listings), oldest first, from
 * `chain_logs`. A mint's Transfer from the zero address is folded into `issued`; the escrow moves
 * of listing and delisting are kept as transfers (they are on chain).
 *
 * @throws NotFoundError `Asset not found` for a token the indexer has not seen
 */
export async function assetHistory(
  database: Database,
  tokenId: string,
): Promise<AssetHistoryEvent[]> {
  const { rows } = await database.pool.query<Row>(
    `SELECT block_number, log_index, tx_hash, block_timestamp, kind, listing_id::text, args
       FROM chain_logs
      WHERE token_id = $1::numeric
         OR listing_id IN (SELECT listing_id FROM listings WHERE token_id = $1::numeric)
      ORDER BY block_number, log_index`,
    [tokenId],
  );
  if (rows.length === 0) {
    const known = await database.pool.query("SELECT 1 FROM assets WHERE token_id = $1::numeric", [
      tokenId,
    ]);
    if (known.rowCount === 0) throw new NotFoundError("Asset not found");
  }
  const events: AssetHistoryEvent[] = [];
  for (const row of rows) {
    const event = EVENT_NAMES[row.kind];
    if (event === undefined) continue;
    const args = row.args;
    if (event === "transferred" && /^0x0{40}$/i.test(args.from ?? "")) continue;
    const priceWei = args.price ?? args.newPrice;
    events.push({
      event,
      blockNumber: Number(row.block_number),
      logIndex: row.log_index,
      txHash: row.tx_hash,
      at: new Date(Number(row.block_timestamp) * 1000).toISOString(),
      from: address(args.from ?? args.seller),
      to: address(args.to ?? args.buyer ?? args.owner),
      listingId: row.listing_id,
      price: priceWei === undefined ? null : weiToDecimal(priceWei),
    });
  }
  return events;
}
