import {
  bigint,
  boolean,
  index,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { orgs } from "./orgs.js";

/**
 * Each organization's low-balance alert (docs/api-decisions.md "Wallet alerts"): the threshold (`lowBalanceWei`,
 * NULL = the default, 10 issuances at 0.15 each), and what the indexer last saw of the wallet:
 * whether it was below the threshold (`low`) and at which block (`observedBlock`, NULL = never,
 * or rolled back by a reorg). `recheck` asks the indexer to read the balance at its next block
 * (set when the threshold changes). `watchFromBlock` is the first block the wallet may be read
 * at: the dev faucet's block, set by registration (NULL = any). A row is created by a
 * registration that funded the wallet, on the first observation, or on a threshold change.
 */
export const walletAlerts = pgTable("wallet_alerts", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => orgs.id),
  lowBalanceWei: numeric("low_balance_wei", { precision: 78, scale: 0 }),
  low: boolean("low").notNull().default(false),
  observedBlock: bigint("observed_block", { mode: "number" }),
  recheck: boolean("recheck").notNull().default(true),
  watchFromBlock: bigint("watch_from_block", { mode: "number" }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The custodial wallet's balance as the indexer saw it (`indexer/balance-watch.ts`): one row per
 * block where it changed (or where it crossed the threshold), read with `eth_getBalance` at that
 * block. Rows above a reorg's common ancestor are deleted with the rest of the read model.
 */
export const walletBalances = pgTable(
  "wallet_balances",
  {
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    blockHash: text("block_hash").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull(),
    balanceWei: numeric("balance_wei", { precision: 78, scale: 0 }).notNull(),
    low: boolean("low").notNull(),
  },
  (t) => [
    primaryKey({ name: "wallet_balances_pkey", columns: [t.orgId, t.blockNumber] }),
    index("wallet_balances_block_idx").on(t.blockNumber),
  ],
);
