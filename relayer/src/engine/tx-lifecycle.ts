import { BaseError } from "../errors.js";
import {
  TX_STATES,
  type TxAttempt,
  type TxErrorKind,
  type TxReceiptSummary,
  type TxState,
} from "../db/schema/transactions.js";

export { TX_STATES, type TxAttempt, type TxErrorKind, type TxReceiptSummary };

/**
 * The life of one write (a row of `transactions`), as a tagged union: each state carries its
 * own data. See docs/transactions.md for the rules:
 * - `queued`: recorded, not broadcast yet, no nonce;
 * - `sent`: at least one signed attempt of its nonce may be in a pool; it stays `sent` until the
 *   chain shows that nonce consumed, whatever happens to later re-pricing attempts;
 * - `mined`: one of its attempts is in a block, with fewer than `CONFIRMATIONS` blocks above it
 *   (with the default of 0 a row goes from `sent` straight to its final state);
 * - `confirmed`: one of its attempts was mined with status 1 and has its confirmations;
 * - `failed`: reverted on chain, or refused before any attempt could be mined;
 * - `replaced`: its nonce went to a gap filler (a self-transfer) and it will never be mined;
 * - `cancelled`: cancelled by the caller before anything was sent (`TxStore.cancelUnsent`), or
 *   its nonce went to the self-transfer sent to cancel it (`cancel` attempt) once it was sent;
 * - `expired`: its deadline (`validForSeconds`) passed before anything was sent, or before it
 *   was mined and the self-transfer sent to cancel it then was mined instead.
 *
 * A reorg that drops the block of a `mined`, `confirmed` or `failed` row (within the indexer's
 * window) puts it back to `sent` (`REORG_REOPENS`): its signed bytes are broadcast again.
 */
export type TxLifecycle =
  | { status: "queued" }
  | { status: "sent"; nonce: number; attempts: readonly TxAttempt[] }
  | { status: "mined"; nonce: number; attempts: readonly TxAttempt[]; receipt: TxReceiptSummary }
  | { status: "confirmed"; receipt: TxReceiptSummary; result: Record<string, unknown> }
  | { status: "failed"; reason: string; errorKind: TxErrorKind; receipt: TxReceiptSummary | null }
  | { status: "replaced"; reason: string }
  | { status: "cancelled"; receipt: TxReceiptSummary | null }
  | { status: "expired"; receipt: TxReceiptSummary | null };

/** The name of a state: each member of the union is one of the stored states. */
export type { TxState };
// The union and the stored states are the same set (a state added to one is a type error here).
const SAME_STATES: [TxLifecycle["status"]] extends [TxState]
  ? [TxState] extends [TxLifecycle["status"]]
    ? true
    : never
  : never = true;
void SAME_STATES;

/** States in which a row still needs work from the engine. */
export const LIVE_STATES = ["queued", "sent", "mined"] as const satisfies readonly TxState[];

/** States a waiting request is answered in (a reorg may still reopen a row with a receipt). */
export const FINAL_STATES = [
  "confirmed",
  "failed",
  "replaced",
  "cancelled",
  "expired",
] as const satisfies readonly TxState[];

/** States a reorg moves back to `sent` when the row's receipt block is no longer canonical. */
export const REORG_REOPENS = [
  "mined",
  "confirmed",
  "failed",
  // Only with a receipt: its cancelling self-transfer was mined.
  "cancelled",
  "expired",
] as const satisfies readonly TxState[];

/**
 * The allowed moves. A row gets its nonce and its first attempt in one write (`queued → sent`);
 * `sent → sent` records another attempt; `sent → queued` happens only when the chain consumed
 * the nonce with a transaction that is none of ours (the write can then never be mined on that
 * nonce, so it is safe to give it a new one). A row seen in a block moves to `mined`, or straight
 * to its final state when no confirmations are asked for. A reorg moves `mined`, `confirmed` and
 * `failed` (with a receipt) back to `sent`. A batch parent moves `queued → sent` when its first
 * child is broadcast and ends with its children.
 */
const TRANSITIONS: Readonly<Record<TxState, readonly TxState[]>> = {
  // Cancelled only while nothing was sent: `markSent` refuses a round whose row moved meanwhile.
  queued: ["sent", "failed", "cancelled", "expired"],
  sent: ["sent", "queued", "mined", "confirmed", "failed", "replaced", "cancelled", "expired"],
  mined: ["sent", "confirmed", "failed", "cancelled", "expired"],
  confirmed: ["sent"],
  failed: ["sent"],
  replaced: [],
  // A reorg that drops the block of its cancelling self-transfer: the race is on again.
  cancelled: ["sent"],
  expired: ["sent"],
};

/**
 * Whether a row in `state` is answered: a waiting request returns, webhooks may go. `confirmed`
 * and `failed` rows move again only when a reorg drops their block (back to `sent`).
 */
export function isFinal(state: TxState): boolean {
  return (FINAL_STATES as readonly TxState[]).includes(state);
}

/** Whether a row may move from `from` to `to`. */
export function canTransition(from: TxState, to: TxState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The states a row may be in for a move to `to` (used in the store's `WHERE state IN (...)`). */
export function sourcesOf(to: TxState): TxState[] {
  return TX_STATES.filter((from) => canTransition(from, to));
}

/** A change of a transaction row that the lifecycle does not allow. */
export class IllegalTransitionError extends BaseError {
  override name = "IllegalTransitionError";
}

/** Throws `IllegalTransitionError` unless `from → to` is allowed. */
export function assertTransition(id: string, from: TxState, to: TxState): void {
  if (!canTransition(from, to))
    throw new IllegalTransitionError(`transaction ${id}: ${from} → ${to} is not allowed`);
}

/**
 * Whether some attempt of a row may still be mined: one that the node did not refuse for good.
 * A row with such an attempt stays open until the chain shows its nonce consumed.
 */
export function mayBeMined(attempts: readonly TxAttempt[]): boolean {
  return attempts.some(isLiveAttempt);
}

/** Whether this attempt may still be mined: neither refused by the node nor superseded. */
export function isLiveAttempt(attempt: TxAttempt): boolean {
  return attempt.refused === undefined && attempt.superseded === undefined;
}

/** The newest attempt that may still be mined (the one re-pricing and fee checks look at). */
export function newestLiveAttempt(attempts: readonly TxAttempt[]): TxAttempt | undefined {
  return attempts.findLast(isLiveAttempt);
}
