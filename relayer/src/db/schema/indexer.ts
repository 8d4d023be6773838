import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";

/**
 * The indexed read model. Every row written by the indexer carries the block it came from, so a
 * reorg rolls back by deleting rows above the common ancestor and replaying the remaining
 * `chain_logs` of the affected tokens and listings (see `indexer/rollback.ts`).
 * Addresses are stored lower-case (checksummed on the way out); money is numeric(78,0) wei.
 */

const uint = (name: string) => numeric(name, { precision: 78, scale: 0 });
const blockNo = (name: string) => bigint(name, { mode: "number" });

/** Where the indexer stands: the last block fully applied (number + hash). One row, id `main`. */
export const indexerCursor = pgTable("indexer_cursor", {
  id: text("id").primaryKey(),
  blockNumber: blockNo("block_number").notNull(),
  blockHash: text("block_hash").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Recent block headers seen by the indexer: reorg detection by parent hash, average block time. */
export const indexedBlocks = pgTable("indexed_blocks", {
  number: blockNo("number").primaryKey(),
  hash: text("hash").notNull(),
  parentHash: text("parent_hash").notNull(),
  timestamp: blockNo("timestamp").notNull(), // seconds
});

/** Every decoded log of the three contracts; the source the derived tables are replayed from. */
export const chainLogs = pgTable(
  "chain_logs",
  {
    blockNumber: blockNo("block_number").notNull(),
    logIndex: integer("log_index").notNull(),
    blockHash: text("block_hash").notNull(),
    txHash: text("tx_hash").notNull(),
    blockTimestamp: blockNo("block_timestamp").notNull(),
    kind: text("kind").notNull(), // AssetIssued, Transfer, ListingCreated, ...
    tokenId: uint("token_id"),
    listingId: uint("listing_id"),
    args: jsonb("args").$type<Record<string, string>>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.blockNumber, t.logIndex] }),
    index("chain_logs_token_id_idx").on(t.tokenId),
    index("chain_logs_listing_id_idx").on(t.listingId),
  ],
);

/** Registered asset types (AssetTypeRegistered). */
export const assetTypes = pgTable("asset_types", {
  typeId: text("type_id").primaryKey(), // keccak256(name), 0x hex
  typeIndex: integer("type_index").notNull(),
  name: text("name").notNull(),
  registrar: text("registrar").notNull(),
  txHash: text("tx_hash").notNull(),
  blockNumber: blockNo("block_number").notNull(),
  registeredAt: timestamp("registered_at", { withTimezone: true }).notNull(),
  /** Only allowlisted addresses may hold tokens of this type (AssetTypeRestrictionSet). */
  restricted: boolean("restricted").notNull().default(false),
});

/** Current state of every token ever minted (derived from chain_logs). */
export const assets = pgTable(
  "assets",
  {
    tokenId: uint("token_id").primaryKey(),
    typeId: text("type_id").notNull(),
    owner: text("owner").notNull(),
    minter: text("minter").notNull(),
    stakeWei: uint("stake_wei").notNull(),
    cid: text("cid").notNull(),
    passwordHash: text("password_hash").notNull(),
    mintTxHash: text("mint_tx_hash").notNull(),
    mintBlock: blockNo("mint_block").notNull(),
    mintedAt: timestamp("minted_at", { withTimezone: true }).notNull(),
    updatedBlock: blockNo("updated_block").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
    redeemed: boolean("redeemed").notNull().default(false),
    /** Frozen by the enforcer (AssetFrozen / AssetUnfrozen), with the last freeze's reason. */
    frozen: boolean("frozen").notNull().default(false),
    frozenReason: text("frozen_reason"),
  },
  (t) => [
    index("assets_owner_idx").on(t.owner, t.tokenId),
    index("assets_type_id_idx").on(t.typeId, t.tokenId),
  ],
);

/** ERC-721 Transfer history (mints and burns included). */
export const transfers = pgTable(
  "transfers",
  {
    blockNumber: blockNo("block_number").notNull(),
    logIndex: integer("log_index").notNull(),
    txHash: text("tx_hash").notNull(),
    tokenId: uint("token_id").notNull(),
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address").notNull(),
    transferredAt: timestamp("transferred_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.blockNumber, t.logIndex] }),
    index("transfers_token_id_idx").on(t.tokenId),
  ],
);

/** Marketplace listings (derived from chain_logs). `state` is the stored state; expiry is computed on read. */
export const listings = pgTable(
  "listings",
  {
    listingId: uint("listing_id").primaryKey(),
    tokenId: uint("token_id").notNull(),
    seller: text("seller").notNull(),
    buyer: text("buyer"),
    priceWei: uint("price_wei").notNull(),
    state: text("state").notNull(), // active | sold | cancelled | expired (reclaimed)
    listedAt: timestamp("listed_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    closedAt: timestamp("closed_at", { withTimezone: true }),
    createTxHash: text("create_tx_hash").notNull(),
    closeTxHash: text("close_tx_hash"),
    createdBlock: blockNo("created_block").notNull(),
    updatedBlock: blockNo("updated_block").notNull(),
  },
  (t) => [
    index("listings_token_id_idx").on(t.tokenId),
    index("listings_seller_idx").on(t.seller, t.listingId),
    index("listings_state_idx").on(t.state, t.listingId),
    index("listings_active_token_idx")
      .on(t.tokenId)
      .where(sql`state = 'active'`),
  ],
);

/** Completed sales (ListingSold). */
export const sales = pgTable(
  "sales",
  {
    blockNumber: blockNo("block_number").notNull(),
    logIndex: integer("log_index").notNull(),
    txHash: text("tx_hash").notNull(),
    listingId: uint("listing_id").notNull(),
    tokenId: uint("token_id").notNull(),
    seller: text("seller").notNull(),
    buyer: text("buyer").notNull(),
    priceWei: uint("price_wei").notNull(),
    soldAt: timestamp("sold_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.blockNumber, t.logIndex] }),
    index("sales_listing_id_idx").on(t.listingId),
  ],
);

/** Addresses allowed to hold restricted asset types (AllowlistUpdated; removed rows deleted). */
export const allowlist = pgTable("allowlist", {
  address: text("address").primaryKey(), // lower-case
  txHash: text("tx_hash").notNull(),
  blockNumber: blockNo("block_number").notNull(),
  addedAt: timestamp("added_at", { withTimezone: true }).notNull(),
});

/** The market pause (MarketPaused / MarketResumed): one row, id `market`, once either happened. */
export const marketState = pgTable("market_state", {
  id: text("id").primaryKey(),
  paused: boolean("paused").notNull(),
  reason: text("reason").notNull(),
  changedBy: text("changed_by").notNull(),
  txHash: text("tx_hash").notNull(),
  blockNumber: blockNo("block_number").notNull(),
  changedAt: timestamp("changed_at", { withTimezone: true }).notNull(),
});
