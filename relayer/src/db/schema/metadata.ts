import { sql } from "drizzle-orm";
import { index, numeric, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Metadata documents bound to the token they were written for. A row is created by the indexer
 * when it applies the token's `AssetIssued` log, from the document recorded on that mint's own
 * transaction row (looked up by the log's transaction hash): nothing is stored for a write that
 * was refused or never mined, and no other organization's write can change what a token shows.
 *
 * `cid` is computed here from `json` (CIDv1, raw codec, sha2-256 of the UTF-8 bytes), so the
 * bytes served at `/ipfs/<cid>` always hash to it; a caller's own `ipfsHash` stays on chain (and
 * in `assets.cid`) as the caller's reference and is never a key of this table.
 */
export const tokenMetadata = pgTable(
  "token_metadata",
  {
    tokenId: numeric("token_id", { precision: 78, scale: 0 }).primaryKey(),
    /** The mint this document belongs to (a reorg may mint the same id in another transaction). */
    mintTxHash: text("mint_tx_hash").notNull(),
    cid: text("cid").notNull(),
    json: text("json").notNull(),
    /** Set once the IPFS target (embedded node, kubo or pinning service) holds the document. */
    pinnedAt: timestamp("pinned_at", { withTimezone: true }),
    /** `embedded` | `kubo` | `pinning-service`: where it was pinned. */
    pinTarget: text("pin_target"),
    /** The last pin failure (the pin is retried from the `metadata-pin` queue). */
    pinError: text("pin_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("token_metadata_cid_idx").on(t.cid),
    // The pin worker's "rows of this document not pinned yet" (`metadata/pin-document.ts`).
    index("token_metadata_unpinned_idx")
      .on(t.cid)
      .where(sql`${t.pinnedAt} is null`),
  ],
);
