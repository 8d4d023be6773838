import { classifyRpcFailure, isAnswerLost, isTxTypeUnsupported } from "../chain/rpc/rpc-errors.js";
import type { FeeQuote } from "./fee-policy.js";
import { newestLiveAttempt, type TxAttempt } from "./tx-lifecycle.js";
import { isGroupRow, isSentRow, type TxRow } from "./tx-rows.js";

/**
 * The engine's decisions, as pure functions of what it knows (docs/transactions.md). The I/O
 * modules beside this one gather the facts, ask here, and carry the answer out; the tests in
 * test/unit/engine-decisions.test.ts pin each rule down.
 */

/**
 * Which queued rows a sending round takes: whole writes in order (a group's queued items
 * together), one in-flight slot each, while the organization has free slots; plus queued items
 * of groups already in flight (partly sent before a crash). Only `sent` rows hold a slot: a
 * `mined` row is no longer in a pool.
 */
export function pickRound(rows: readonly TxRow[], maxInFlight: number): TxRow[] {
  const inFlight = new Set(rows.filter((r) => r.state === "sent").map((r) => r.parentId ?? r.id));
  let free = maxInFlight - inFlight.size;
  const picked: TxRow[] = [];
  for (const root of rows) {
    if (free <= 0) break;
    if (root.parentId !== null || root.state !== "queued" || inFlight.has(root.id)) continue;
    const members = isGroupRow(root)
      ? rows.filter((r) => r.parentId === root.id && r.state === "queued")
      : [root];
    picked.push(...members);
    free--;
  }
  for (const row of rows)
    if (row.parentId !== null && row.state === "queued" && inFlight.has(row.parentId))
      picked.push(row);
  return picked;
}

/** What one broadcast's answer means. */
export type BroadcastVerdict =
  | { kind: "accepted" } // in the pool (or already was)
  | { kind: "maybe-in-pool" } // no answer, or the node is unreachable: it may have it
  | { kind: "nonce-too-low" } // the nonce is used: the nonce check decides by whom
  | { kind: "underpriced" } // a replacement must pay more
  | { kind: "wrong-type" } // the node does not take this transaction type: detect the fee model again
  | { kind: "refused"; reason: string }; // the node refused it for good: it can never be mined

/**
 * Reads a broadcast's answer. A lost answer (timeout, missing batch entry, node unreachable) is
 * never a refusal: the node may have the transaction, so the write stays open and the same
 * bytes are sent again later.
 */
export function broadcastVerdict(answer: unknown): BroadcastVerdict {
  if (!(answer instanceof Error)) return { kind: "accepted" };
  if (isAnswerLost(answer)) return { kind: "maybe-in-pool" };
  if (isTxTypeUnsupported(answer)) return { kind: "wrong-type" };
  const kind = classifyRpcFailure(answer);
  switch (kind) {
    case "already-known":
      return { kind: "accepted" };
    case "unavailable":
      return { kind: "maybe-in-pool" };
    case "nonce-too-low":
      return { kind: "nonce-too-low" };
    case "underpriced":
      return { kind: "underpriced" };
    case "insufficient-funds":
      return { kind: "refused", reason: "Insufficient funds for gas and value" };
    default:
      return { kind: "refused", reason: answer.message };
  }
}

/** A receipt as the node answers `eth_getTransactionReceipt` / `eth_getBlockReceipts`. */
export interface RawReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  gasUsed: string;
  effectiveGasPrice?: string;
  logs: Array<{ address: string; topics: string[]; data: string }>;
}

/** What the receipt look-ups of a row whose nonce the chain consumed say. */
export type ReceiptVerdict =
  | { kind: "mined"; receipt: RawReceipt } // one of its attempts is in a block
  | { kind: "look-again" } // an error, a missing answer: nothing is known
  | { kind: "no-receipt" }; // every attempt answered a definite null: find who took the nonce

/**
 * Reads the receipt answers of every attempt of one row (`answers[i]` for `attempts[i]`: a
 * receipt, `null`, `undefined` for a missing answer, or an error). A `null` alone never proves
 * anything (a lagging node, a node still indexing): it only leads to `takerVerdict`.
 */
export function receiptVerdict(answers: readonly unknown[]): ReceiptVerdict {
  for (const answer of answers) if (isReceipt(answer)) return { kind: "mined", receipt: answer };
  if (answers.length === 0 || answers.some((a) => a !== null)) return { kind: "look-again" };
  return { kind: "no-receipt" };
}

function isReceipt(value: unknown): value is RawReceipt {
  return (
    typeof value === "object" &&
    value !== null &&
    !(value instanceof Error) &&
    typeof (value as { transactionHash?: unknown }).transactionHash === "string" &&
    typeof (value as { blockHash?: unknown }).blockHash === "string"
  );
}

/** A transaction of a block, as `eth_getBlockByNumber(n, true)` lists it. */
export interface BlockTransaction {
  hash: string;
  from: string;
  nonce: string;
}

/** Who took a nonce, from the block where the sender's count passed it. */
export type TakerVerdict =
  | { kind: "ours"; hash: string } // one of the row's attempts: its receipt will come
  | { kind: "taken"; by: string } // another transaction: the row can never be mined on it
  | { kind: "look-again" }; // the block is unknown to the node that answered, or inconsistent

/**
 * The definitive evidence that lets a write take a new nonce: the block in which the sender's
 * transaction count passed `nonce` holds a transaction from `sender` with that nonce, and its
 * hash is none of the row's attempts. Anything less (no block, no such transaction) is
 * `look-again`, never a re-queue.
 */
export function takerVerdict(
  block: { transactions: readonly (BlockTransaction | string)[] } | null | undefined,
  sender: string,
  nonce: number,
  attemptHashes: readonly string[],
): TakerVerdict {
  if (block === null || block === undefined) return { kind: "look-again" };
  const from = sender.toLowerCase();
  const taker = block.transactions.find(
    (t): t is BlockTransaction =>
      typeof t === "object" && t.from.toLowerCase() === from && Number(BigInt(t.nonce)) === nonce,
  );
  if (taker === undefined) return { kind: "look-again" };
  const ours = attemptHashes.map((h) => h.toLowerCase());
  return ours.includes(taker.hash.toLowerCase())
    ? { kind: "ours", hash: taker.hash }
    : { kind: "taken", by: taker.hash };
}

/**
 * The smallest block in `[low, high]` at which `countAt(block) > nonce` (the sender's count only
 * grows along one chain): back from `high` by doubling steps until a block's count is at or
 * below the nonce, then by bisection between the two. The nonce was most likely used in a recent
 * block, and a node that keeps only recent states (a full node keeps 128; the embedded chain 16)
 * answers only for those: a bisection from `low` asked for the state half the chain back first,
 * and failed on every such node. `countAt` may throw: the search then fails and the caller looks
 * again later.
 */
export async function blockWhereNonceWasUsed(
  nonce: number,
  low: number,
  high: number,
  countAt: (block: number) => Promise<number>,
): Promise<number | undefined> {
  if ((await countAt(high)) <= nonce) return undefined;
  let lo = Math.max(0, low);
  let hi = high;
  for (let step = 1; high - step > lo; step *= 2) {
    const probe = high - step;
    if ((await countAt(probe)) <= nonce) {
      lo = probe + 1;
      break;
    }
    hi = probe;
  }
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await countAt(mid)) > nonce) hi = mid;
    else lo = mid + 1;
  }
  return hi;
}

/** What a `mined` row's confirmations say, `confirmations` blocks after its block. */
export type ConfirmationVerdict = "wait" | "confirm" | "reorged";

/**
 * A mined row is confirmed once `confirmations` blocks stand above its block on the chain and
 * the block at its height still has its receipt's hash. A different hash means a reorg dropped
 * it (the indexer reopens the row); no answer means wait.
 */
export function confirmationVerdict(
  receipt: { blockNumber: number; blockHash: string },
  head: number,
  confirmations: number,
  canonicalHash: string | null | undefined,
): ConfirmationVerdict {
  if (head - receipt.blockNumber < confirmations) return "wait";
  if (canonicalHash === null || canonicalHash === undefined) return "wait";
  return canonicalHash.toLowerCase() === receipt.blockHash.toLowerCase() ? "confirm" : "reorged";
}

/**
 * The attempt to broadcast again for a row: the one a reorg dropped from its block, else the
 * newest that may still be mined, else the newest.
 */
export function attemptToRebroadcast(attempts: readonly TxAttempt[]): TxAttempt | undefined {
  return (
    attempts.find((a) => a.reorgedFrom !== undefined && a.superseded === undefined) ??
    newestLiveAttempt(attempts) ??
    attempts.at(-1)
  );
}

/**
 * Whether an open row's last attempt should be sent again as it is: never broadcast by this
 * process (taken over, or its answer was lost), reopened by a reorg since, or not broadcast
 * for `everyMs` (pools drop transactions; resending the same bytes is harmless).
 */
export function rebroadcastDue(
  lastBroadcastMs: number | undefined,
  reopenedAtMs: number | undefined,
  now: number,
  everyMs: number,
): boolean {
  if (lastBroadcastMs === undefined) return true;
  if (reopenedAtMs !== undefined && reopenedAtMs > lastBroadcastMs) return true;
  return now - lastBroadcastMs >= everyMs;
}

/**
 * Whether a sent row is priced out: the fee cap of its newest live attempt is below the next
 * block's base fee, so no block takes it until it is re-priced. Under a backlog on a fee market
 * every full block raises the base fee by 12.5%: a write sent a few blocks earlier can fall
 * behind it, and waiting `stuckAfterMs` (15 s) before re-pricing it was the long tail of
 * synchronous writes (issue 45). Such a row is re-priced at the next look instead, unless its
 * last attempt is already at `cap` (the row's fee cap: `feeCapOf`).
 */
export function pricedOut(row: TxRow, baseFee: bigint | undefined, cap: bigint): boolean {
  if (!isSentRow(row) || baseFee === undefined || baseFee === 0n) return false;
  const last = newestLiveAttempt(row.attempts);
  if (last === undefined) return false;
  const fee = BigInt(last.maxFeePerGas);
  // One already at its cap waits for `stuckAfterMs` as before: a re-pricing cannot raise it.
  return fee < baseFee && fee < cap;
}

/**
 * Whether a sent row is outbid by the writes sent after it: the fee cap of its newest live
 * attempt is below the current quote's, and below `cap`. A quote holds for a run of blocks
 * (`keptQuote`); when it moves up, the writes priced before would wait behind the newer ones on
 * a pool that orders by fee cap (anvil's) and fall behind the rising base fee first. They are
 * re-priced at the next look, so the oldest writes are priced at least as high as the newest.
 */
export function outbid(row: TxRow, quote: FeeQuote | undefined, cap: bigint): boolean {
  if (!isSentRow(row) || quote === undefined) return false;
  const last = newestLiveAttempt(row.attempts);
  if (last === undefined || (last.type ?? 2) !== (quote.type ?? 2)) return false;
  const fee = BigInt(last.maxFeePerGas);
  return fee < quote.maxFeePerGas && fee < cap;
}

/**
 * Whether an open row (its nonce not yet used at `latest`) is stuck for want of blocks, and why:
 * `stuckAfterBlocks` blocks or more came since this process first saw it out (`openSinceHead`)
 * and none holds it. `not-mined` when its nonce is the wallet's next (the chain's count at
 * `latest`): it is its own transaction that the blocks leave out. `nonce-gap` when its nonce is
 * higher: a lower nonce of the wallet, missing or not mined, holds it (the node cannot mine it
 * first). `undefined`: not stuck, or the rule is off (`stuckAfterBlocks` 0).
 *
 * @example
 * blockStuckReason(7, 5, 100, 120, 20) // "nonce-gap": nonces 5 and 6 are not mined
 */
export function blockStuckReason(
  nonce: number,
  latestCount: number,
  openSinceHead: number,
  head: number,
  stuckAfterBlocks: number,
): "not-mined" | "nonce-gap" | undefined {
  if (stuckAfterBlocks <= 0 || nonce < latestCount) return undefined;
  if (head - openSinceHead < stuckAfterBlocks) return undefined;
  return nonce > latestCount ? "nonce-gap" : "not-mined";
}

/**
 * Whether a sent row is stuck (re-price it): its newest attempt, and its reopening by a reorg,
 * are both older than `stuckAfterMs`.
 */
export function isStuck(row: TxRow, now: number, stuckAfterMs: number): boolean {
  if (!isSentRow(row)) return false;
  const last = row.attempts.at(-1);
  if (last === undefined) return false;
  const since = Math.max(Date.parse(last.sentAt), row.reopenedAt?.getTime() ?? 0);
  return now - since >= stuckAfterMs;
}
