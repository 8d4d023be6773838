import { BaseError } from "../errors.js";

/**
 * The life of one write (a row of `transactions`), as a tagged union: each state carries its
 * own data. See docs/transactions.md for the rules:
 * - `queued`: recorded, not broadcast yet, no nonce;
 * - `sent`: at least one signed attempt of its nonce may be in a pool; it stays `sent` until the
 *   chain shows that nonce consumed, whatever happens to later re-pricing attempts;
 * - `confirmed`: one of its attempts was mined with status 1;
 * - `failed`: reverted on chain, or refused before any attempt could be mined;
 * - `replaced`: its nonce went to a gap filler (a self-transfer) and it will never be mined.
 */
export type TxLifecycle =
  | { status: "queued" }
  | { status: "sent"; nonce: number; attempts: readonly TxAttempt[] }
  | { status: "confirmed"; receipt: TxReceiptSummary; result: Record<string, unknown> }
  | { status: "failed"; reason: string; errorKind: TxErrorKind; receipt: TxReceiptSummary | null }
  | { status: "replaced"; reason: string };

/** The name of a state. */
export type TxState = TxLifecycle["status"];

/** Every state, in lifecycle order. */
export const TX_STATES = ["queued", "sent", "confirmed", "failed", "replaced"] as const;

/** States in which a row still needs work. */
export const LIVE_STATES = ["queued", "sent"] as const satisfies readonly TxState[];

/** How the API surfaces a failure: a revert reason, a refusal, or an internal problem. */
export type TxErrorKind = "revert" | "rejected" | "internal";

/** One signed broadcast of a transaction (re-pricing adds a new attempt with the same nonce). */
export interface TxAttempt {
  hash: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  sentAt: string; // ISO time
  /** Set when the node refused this attempt for good: it can never be mined. */
  refused?: string;
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
 * The allowed moves. A row gets its nonce and its first attempt in one write (`queued → sent`);
 * `sent → sent` records another attempt; `sent → queued` happens only when the chain consumed
 * the nonce with a transaction that is none of ours (the write can then never be mined on that
 * nonce, so it is safe to give it a new one). A batch parent moves `queued → sent` when its
 * first child is broadcast and ends with its children.
 */
const TRANSITIONS: Readonly<Record<TxState, readonly TxState[]>> = {
  queued: ["sent", "failed"],
  sent: ["sent", "queued", "confirmed", "failed", "replaced"],
  confirmed: [],
  failed: [],
  replaced: [],
};

/** Whether a row in `state` needs no more work. */
export function isFinal(state: TxState): boolean {
  return TRANSITIONS[state].length === 0;
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
  return attempts.some((a) => a.refused === undefined);
}
