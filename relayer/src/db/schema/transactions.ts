import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { orgs, wallets } from "./orgs.js";

/**
 * Lifecycle of one write. `queued`: recorded, not yet broadcast (a nonce may already be
 * reserved); `sent`: at least one signed attempt was broadcast; `mined`: a receipt was seen;
 * `confirmed`: the receipt's block has the configured depth; `failed`: reverted, rejected before
 * sending, or given up; `replaced`: the row's nonce was consumed by another transaction (a gap
 * filler) and the row will never be mined. A batch parent row aggregates its children.
 */
export const TX_STATES = ["queued", "sent", "mined", "confirmed", "failed", "replaced"] as const;
export type TxState = (typeof TX_STATES)[number];

/** One signed broadcast of a transaction (re-pricing adds a new attempt with the same nonce). */
export interface TxAttempt {
  hash: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  sentAt: string; // ISO time
}

/** The part of a receipt kept on the row. */
export interface TxReceiptSummary {
  hash: string;
  blockNumber: number;
  blockHash: string;
  status: number;
  gasUsed: string;
  effectiveGasPrice: string;
}

/**
 * Every write the relayer performs, recorded before anything is signed. A batch issuance is one
 * parent row (`kind = batch-issue`, no chain fields) with one child row per asset.
 */
export const transactions = pgTable(
  "transactions",
  {
    id: text("id").primaryKey(), // tx_<hex>
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    walletId: text("wallet_id")
      .notNull()
      .references(() => wallets.id),
    parentId: text("parent_id"),
    itemIndex: integer("item_index"),
    kind: text("kind").notNull(), // issue-asset | batch-issue | transfer | list | buy | delist | register-asset-type | nonce-fill
    mode: text("mode").notNull().default("sync"), // sync | async (how the caller waits)
    requestHash: text("request_hash").notNull(), // sha256 of the canonical request body
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address"),
    data: text("data"),
    value: text("value").notNull().default("0"), // wei, decimal
    gasLimit: text("gas_limit"),
    maxFeePerGas: text("max_fee_per_gas"),
    maxPriorityFeePerGas: text("max_priority_fee_per_gas"),
    nonce: bigint("nonce", { mode: "number" }),
    state: text("state").$type<TxState>().notNull().default("queued"),
    attempts: jsonb("attempts").$type<TxAttempt[]>().notNull().default([]),
    receipt: jsonb("receipt").$type<TxReceiptSummary>(),
    /** What the API answers once mined (tokenId, listingId, ...), built by the write service. */
    context: jsonb("context").$type<Record<string, unknown>>().notNull().default({}),
    result: jsonb("result").$type<Record<string, unknown>>(),
    error: text("error"),
    /** `revert` | `rejected` | `rpc-unavailable` | `internal`: how `error` should be surfaced. */
    errorKind: text("error_kind"),
    /** Last transient problem while the row is still live (e.g. the node is down). */
    lastError: text("last_error"),
    lockedBy: text("locked_by"),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** Set while the row holds one of its org's in-flight slots (at most 10 per org). */
    runningSince: timestamp("running_since", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    minedAt: timestamp("mined_at", { withTimezone: true }),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    failedAt: timestamp("failed_at", { withTimezone: true }),
    replacedAt: timestamp("replaced_at", { withTimezone: true }),
  },
  (t) => [
    index("transactions_org_state_idx").on(t.orgId, t.state),
    index("transactions_parent_idx").on(t.parentId),
    index("transactions_live_idx")
      .on(t.state, t.lockedUntil)
      .where(sql`${t.state} in ('queued', 'sent', 'mined')`),
    uniqueIndex("transactions_wallet_nonce_live_key")
      .on(t.walletId, t.nonce)
      .where(
        sql`${t.nonce} is not null and ${t.state} in ('queued', 'sent', 'mined', 'confirmed')`,
      ),
  ],
);

/**
 * `Idempotency-Key` records: one per (org, key), pointing at the transaction the first request
 * created. Kept at least 24 h (`expires_at`); expired rows may be deleted and the key reused.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    transactionId: text("transaction_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("idempotency_keys_org_key").on(t.orgId, t.key),
    index("idempotency_keys_expires_idx").on(t.expiresAt),
  ],
);

/** Metadata documents built at issuance, served at GET /api/v1/nft/{id}. `json` is the exact canonical text hashed into `cid`. */
export const assetMetadata = pgTable("asset_metadata", {
  cid: text("cid").primaryKey(),
  json: text("json").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
