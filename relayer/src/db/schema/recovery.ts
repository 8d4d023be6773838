import { bigint, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { orgs, wallets } from "./orgs.js";

/**
 * Custodial wallets whose rows must be made to agree with the chain before the service takes
 * their writes (`engine/chain-reconciler.ts`, docs/recovery.md "After a restore"): written by
 * `npm run restore` (one row per wallet, from the backup's chain head) and by the engine's start
 * when a wallet's nonce on chain is ahead of its rows. Deleted once the wallet is reconciled.
 */
export const chainReconciliations = pgTable("chain_reconciliations", {
  walletId: text("wallet_id")
    .primaryKey()
    .references(() => wallets.id),
  /** The first block looked at is the one after this. */
  fromBlock: bigint("from_block", { mode: "number" }).notNull(),
  /** `restore` | `nonce-ahead`. */
  reason: text("reason").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Idempotency records rebuilt from the chain: the write tag of a transaction mined after the
 * backup carries the keyed hash of its `Idempotency-Key` (`keyTag`) and the first bytes of its
 * request hash (`requestTag`), not the key itself (`engine/write-tag.ts`). A retried request
 * whose key hashes to `keyTag` gets `transactionId`'s answer (`writes/idempotency.ts`).
 */
export const recoveredIdempotencyKeys = pgTable(
  "recovered_idempotency_keys",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    keyTag: text("key_tag").notNull(),
    requestTag: text("request_tag").notNull(),
    transactionId: text("transaction_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.keyTag] })],
);
