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
import { TRANSACTION_STATES, type TransactionState } from "../../domain/transaction.js";
import { orgs, wallets } from "./orgs.js";

/*
 * What the columns of a transaction row hold. The engine's lifecycle (engine/tx-lifecycle.ts)
 * gives these states their meaning and their allowed moves.
 */

/** Every state, in lifecycle order: the states the API reports (`domain/transaction.ts`). */
export const TX_STATES = TRANSACTION_STATES;

/** The name of a stored state. */
export type TxState = TransactionState;

/** How the API surfaces a failure: a revert reason, a refusal, or an internal problem. */
export type TxErrorKind = "revert" | "rejected" | "internal";

/** One signed broadcast of a transaction (re-pricing adds a new attempt with the same nonce). */
export interface TxAttempt {
  hash: string;
  /** The nonce it was signed with (absent on rows from before it was recorded: the row's). */
  nonce?: number;
  /** Transaction type: 2 (EIP-1559) or 0 (legacy; both fee fields then hold the gas price). */
  type?: 0 | 2;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  sentAt: string; // ISO time
  /**
   * The signed bytes, so the very same transaction can be broadcast again (after a reorg, a lost
   * answer, a restart). Signatures from an HSM are not deterministic: re-signing would make
   * another hash. Absent on rows from before it was recorded (their key signs again, RFC 6979).
   */
  raw?: string;
  /** Set when the node refused this attempt for good: it can never be mined. */
  refused?: string;
  /** Set when another transaction took this attempt's nonce: it can never be mined. */
  superseded?: string;
  /**
   * Set when this attempt was mined and ran out of gas: the write was re-estimated and sent
   * again with a new nonce (`superseded` is then its own hash). Once per write.
   */
  outOfGas?: true;
  /** Block number this attempt was mined in before a reorg dropped that block. */
  reorgedFrom?: number;
  /**
   * Set on a zero-value self-transfer signed on the row's nonce to cancel the write
   * (`POST /api/v1/transactions/{id}/cancel` of a sent write): mined, the write ends `cancelled`.
   */
  cancel?: true;
  /**
   * With `cancel`: sent because the write's deadline (`validForSeconds`) passed before it was
   * mined, not because the caller asked; mined, the write ends `expired`.
   */
  deadline?: true;
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
    kind: text("kind").notNull(), // a write kind, batch-issue (parent), or nonce-fill
    mode: text("mode").notNull().default("sync"), // sync | async (how the caller waits)
    requestHash: text("request_hash").notNull(), // sha256 of the canonical request body
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address"),
    data: text("data"),
    value: text("value").notNull().default("0"), // wei, decimal
    gasLimit: text("gas_limit"),
    maxFeePerGas: text("max_fee_per_gas"),
    maxPriorityFeePerGas: text("max_priority_fee_per_gas"),
    /** The highest maxFeePerGas any attempt may pay: what the funds check reserved at acceptance. */
    feeCap: text("fee_cap"),
    nonce: bigint("nonce", { mode: "number" }),
    state: text("state").$type<TxState>().notNull().default("queued"),
    attempts: jsonb("attempts").$type<TxAttempt[]>().notNull().default([]),
    receipt: jsonb("receipt").$type<TxReceiptSummary>(),
    /** What the API answers once mined (tokenId, listingId, ...), built by the write service. */
    context: jsonb("context").$type<Record<string, unknown>>().notNull().default({}),
    result: jsonb("result").$type<Record<string, unknown>>(),
    error: text("error"),
    /** `revert` | `rejected` | `rpc-unavailable` | `internal`: how `error` should be surfaced. */
    errorKind: text("error_kind").$type<TxErrorKind>(),
    /** Last transient problem while the row is still live (e.g. the node is down). */
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    minedAt: timestamp("mined_at", { withTimezone: true }),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    failedAt: timestamp("failed_at", { withTimezone: true }),
    replacedAt: timestamp("replaced_at", { withTimezone: true }),
    cancelledAt: timestamp("cancelled_at", { withTimezone: true }),
    /** When the engine marked the sent write stuck, and why (`fee-cap`): `transaction.stuck`. */
    stuckSince: timestamp("stuck_since", { withTimezone: true }),
    stuckReason: text("stuck_reason"),
    /** When the caller last raised the write's fee cap (speed-up): re-priced at once. */
    speedUpAt: timestamp("speed_up_at", { withTimezone: true }),
    /** When the caller asked to cancel the write once it was sent (a self-transfer races it). */
    cancelRequestedAt: timestamp("cancel_requested_at", { withTimezone: true }),
    /** The write's deadline (`validForSeconds`): not sent by then, it ends `expired`. */
    validUntil: timestamp("valid_until", { withTimezone: true }),
    expiredAt: timestamp("expired_at", { withTimezone: true }),
    /** The `Idempotency-Key` the write was made with (its root row), told in its outcome event. */
    idempotencyKey: text("idempotency_key"),
    /** When a reorg last put this row back to `sent`: its attempt is broadcast again at once. */
    reopenedAt: timestamp("reopened_at", { withTimezone: true }),
  },
  (t) => [
    index("transactions_org_state_idx").on(t.orgId, t.state),
    // An organization's transfers of the last 24 hours (the policy's daily limit).
    index("transactions_org_kind_created_idx").on(t.orgId, t.kind, t.createdAt),
    // Only a batch's items have a parent: a single write's row versions add no entry here.
    index("transactions_parent_idx")
      .on(t.parentId)
      .where(sql`${t.parentId} is not null`),
    index("transactions_wallet_live_idx")
      .on(t.walletId, t.createdAt)
      .where(sql`${t.state} in ('queued', 'sent', 'mined')`),
    // Rows a reorg may reopen are found by their receipt's block (`TxStore.reopenReorged`).
    index("transactions_receipt_block_idx")
      .on(sql`((${t.receipt}->>'blockNumber')::bigint)`)
      .where(sql`${t.receipt} is not null`),
    // A wallet's writes mined after a block, for the funds check (`TxStore.record`).
    index("transactions_wallet_receipt_block_idx")
      .on(t.walletId, sql`((${t.receipt}->>'blockNumber')::bigint)`)
      .where(sql`${t.receipt} is not null`),
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

/**
 * The write each broadcast hash belongs to, one row per attempt, written in the statement that
 * records the attempt (`engine/leased-tx-writes.ts`) and never changed: the indexer finds a mint's
 * own write by the hash in its log (`metadata/bind-metadata.ts`). A GIN index on
 * `transactions.attempts` did this before; every update of a row re-indexed all its attempts'
 * fields, and each look-up scanned the index's pending list: about a third of PostgreSQL's
 * time under load.
 */
export const transactionHashes = pgTable("transaction_hashes", {
  hash: text("hash").primaryKey(),
  transactionId: text("transaction_id").notNull(),
});
