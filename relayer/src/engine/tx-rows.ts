import type { transactions } from "../db/schema/index.js";
import type { TxReceiptSummary } from "./tx-lifecycle.js";

/** A row of `transactions` as the store reads it. */
export type TxRow = typeof transactions.$inferSelect;

/** A row with a nonce whose attempts may be in a pool. */
export type SentRow = TxRow & { state: "sent"; nonce: number };

/** A row seen in a block, waiting for its confirmations. */
export type MinedRow = TxRow & { state: "mined"; nonce: number; receipt: TxReceiptSummary };

/** Whether `row` is `sent` (and so has its nonce). */
export function isSentRow(row: TxRow): row is SentRow {
  return row.state === "sent" && row.nonce !== null;
}

/** Whether `row` is `mined` (and so has its nonce and receipt). */
export function isMinedRow(row: TxRow): row is MinedRow {
  return row.state === "mined" && row.nonce !== null && row.receipt !== null;
}

/**
 * Whether `row` groups other rows (a write of several transactions, e.g. a batch issuance) rather
 * than being a transaction itself: it has no chain fields, and its items point at it with
 * `parent_id`. The engine sends the items and ends the group with them; what a group means is
 * its write kind's concern.
 */
export function isGroupRow(row: Pick<TxRow, "toAddress" | "data">): boolean {
  return row.toAddress === null && row.data === null;
}

/** The SQL form of `isGroupRow` for a `transactions` alias. */
export const isGroupSql = (alias: string) =>
  `(${alias}.to_address IS NULL AND ${alias}.data IS NULL)`;
