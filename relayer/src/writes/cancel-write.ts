import type { AppContext } from "../context.js";
import type { Scope } from "../domain/scope.js";
import { ForbiddenError, NotFoundError, TransactionStateError } from "../errors.js";
import { cancelFees, feesOf } from "../engine/fee-policy.js";
import { isFinal, newestLiveAttempt, type TxState } from "../engine/tx-lifecycle.js";
import { isGroupRow } from "../engine/tx-rows.js";
import type { TxRow } from "../engine/tx-store.js";
import { writeKindOf } from "./kinds/index.js";
import { readTransactionStatus, type TransactionStatusRead } from "./transaction-status.js";

/** A transaction id as the API hands them out (`engine/tx-ids.ts`). */
const TX_ID = /^tx_[0-9a-f]{24}$/;

/** What became of one item of a sent batch the caller cancelled (`CancelOutcome.items`). */
export interface BatchItemCancel {
  /** The item's place in the request's `assets`. */
  index: number;
  /** Its state after the cancel. */
  status: TxState;
  /**
   * `cancelled`: it was not sent, and ended at once; `cancelling`: sent, raced by a
   * self-transfer on its nonce (the chain decides); `too-late`: already mined or final.
   */
  cancel: "cancelled" | "cancelling" | "too-late";
}

/** What a cancel answers: the write's status once it ended, or 202 while the chain decides. */
export type CancelOutcome =
  | { status: "final"; read: TransactionStatusRead }
  | { status: "cancelling"; transactionId: string; items?: BatchItemCancel[] };

/**
 * `POST /api/v1/transactions/{id}/cancel` (docs/api-decisions.md "Cancelling a write").
 *
 * - A write nothing was sent of ends `cancelled` at once (nothing on the chain, its reserved
 *   funds free, `transaction.cancelled` sent), through `TxStore.cancelUnsent`, which never races
 *   the engine's sender: the answer is its status.
 * - A single write already `sent` is raced by a zero-value self-transfer on its nonce
 *   (`TxStore.requestCancel`; the wallet's sequencer signs and sends it, `engine/repricer.ts`
 *   `sendCancels`): 202 `cancelling`. It ends `cancelled` if that is mined, else as the chain
 *   decides. Refused with 409 (its state and a reason) when no replacement can outbid it: a
 *   chain without fees, or `MAX_FEE_PER_GAS_GWEI` below the pool's replacement bump over it;
 *   and for a batch already sent.
 * - Another organization's write, a batch's item, or an id that is not a write: 404. The caller
 *   must hold a scope of the write's kind (`mayWrite`, checked by the route): 403.
 * - Already cancelled: the same answer again (cancelling twice answers the first's outcome).
 * - Final in another state (`confirmed`, `failed`, ...), or `mined`: 409 with its state.
 *
 * @param mayWrite whether the caller may make a write of these scopes (any one of them)
 */
export async function cancelWrite(
  ctx: AppContext,
  orgId: string,
  txId: string,
  mayWrite: (scopes: readonly Scope[]) => boolean,
): Promise<CancelOutcome> {
  const store = ctx.engine.store;
  const row = await callerWrite(ctx, orgId, txId, mayWrite);
  let state = row.state;
  if (state === "queued") {
    const outcome = await store.cancelUnsent(orgId, txId);
    if (outcome === undefined) throw new NotFoundError("Transaction not found");
    state = outcome.state;
    // The wallet's step loads its rows again: a round it was building is refused and rebuilt.
    if (outcome.cancelled) ctx.engine.submit(outcome.walletId);
  }
  if (state === "sent") {
    const current = (await store.get(txId)) ?? row;
    if (current.state === "sent") return cancelSent(ctx, orgId, current);
    state = current.state;
  }
  if (state !== "cancelled") throw new TransactionStateError(refusal(state), state);
  return { status: "final", read: await readTransactionStatus(ctx, orgId, txId) };
}

/**
 * The write `txId` of `orgId` that the caller may act on (cancel, speed up): 404 for another
 * organization's write, a batch's item or an id that is not a write; 409 for the engine's own
 * rows (a nonce gap's filler); 403 without a scope of the write's kind (`mayWrite`).
 */
export async function callerWrite(
  ctx: AppContext,
  orgId: string,
  txId: string,
  mayWrite: (scopes: readonly Scope[]) => boolean,
): Promise<TxRow> {
  const row = TX_ID.test(txId) ? await ctx.engine.store.get(txId) : undefined;
  if (row === undefined || row.orgId !== orgId || row.parentId !== null)
    throw new NotFoundError("Transaction not found");
  const kind = writeKindOf(row.kind);
  if (kind === undefined) throw new TransactionStateError(refusal(row.state), row.state);
  if (!mayWrite(kind.scopes))
    throw new ForbiddenError("Insufficient scope", { details: { needed: kind.scopes } });
  return row;
}

/** The sent half of `cancelWrite`: refusals first, then the request to the wallet's sequencer. */
async function cancelSent(ctx: AppContext, orgId: string, row: TxRow): Promise<CancelOutcome> {
  if (isGroupRow(row)) return cancelSentBatch(ctx, orgId, row);
  await assertOutbiddable(ctx, [row]);
  const asked = await ctx.engine.store.requestCancel(orgId, row.id);
  if (asked === undefined) {
    // Settled meanwhile: the chain decided.
    const now = await ctx.engine.store.get(row.id);
    const state = now?.state ?? row.state;
    if (state === "cancelled")
      return { status: "final", read: await readTransactionStatus(ctx, orgId, row.id) };
    throw new TransactionStateError(refusal(state), state);
  }
  ctx.engine.submit(asked.walletId);
  return { status: "cancelling", transactionId: row.id };
}

/**
 * 409 unless a self-transfer can outbid every one of `rows` (sent writes): never on a chain
 * without fees, nor when `MAX_FEE_PER_GAS_GWEI` leaves no room for the pool's replacement bump.
 */
async function assertOutbiddable(ctx: AppContext, rows: readonly TxRow[]): Promise<void> {
  if (rows.length === 0) return;
  const model = await ctx.engine.fees.detect();
  const outbid = (row: TxRow) => {
    const last = newestLiveAttempt(row.attempts);
    return (
      last !== undefined &&
      cancelFees(feesOf(last), feesOf(last), ctx.config.maxFeePerGasWei) !== undefined
    );
  };
  if (model.source !== "free" && rows.every(outbid)) return;
  throw new TransactionStateError(
    model.source === "free"
      ? "Transaction already sent: on a chain without fees no replacement can outbid it, so it cannot be cancelled"
      : "Transaction already sent: MAX_FEE_PER_GAS_GWEI leaves no room to outbid it, so it cannot be cancelled",
    "sent",
  );
}

/**
 * A batch already partly sent (docs/api-decisions.md "Cancelling a write"): each item not yet
 * mined is cancelled, the unsent ones at once, the sent ones raced on their nonces
 * (`TxStore.cancelSentBatch`); 202 `cancelling` with what became of each item. 409 when
 * nothing is left to cancel (every item mined or final), or when the sent items cannot be
 * outbid (as a single write).
 */
async function cancelSentBatch(
  ctx: AppContext,
  orgId: string,
  group: TxRow,
): Promise<CancelOutcome> {
  const store = ctx.engine.store;
  const children = await store.children(group.id);
  await assertOutbiddable(
    ctx,
    children.filter((c) => c.state === "sent" && c.nonce !== null && c.cancelRequestedAt === null),
  );
  const outcome = await store.cancelSentBatch(orgId, group.id);
  if (outcome === undefined) {
    // Ended meanwhile: answered as any write that ended.
    const now = await store.get(group.id);
    const state = now?.state ?? group.state;
    if (state === "cancelled")
      return { status: "final", read: await readTransactionStatus(ctx, orgId, group.id) };
    throw new TransactionStateError(refusal(state), state);
  }
  const items: BatchItemCancel[] = outcome.items.map((item) => ({
    index: item.index,
    status: item.state,
    cancel: item.state === "cancelled" ? "cancelled" : item.cancelAsked ? "cancelling" : "too-late",
  }));
  // The sequencer sends the self-transfers, and ends the batch once its last item has ended.
  ctx.engine.submit(outcome.walletId);
  if (items.every((i) => i.cancel === "too-late"))
    throw new TransactionStateError(
      "Transaction already mined: no item of the batch is left to cancel",
      "sent",
    );
  return { status: "cancelling", transactionId: group.id, items };
}

/** Why a write in `state` cannot be cancelled, in words. */
function refusal(state: TxState): string {
  if (isFinal(state)) return `Transaction already ${state}`;
  return state === "mined"
    ? "Transaction already mined: it cannot be cancelled"
    : "Transaction already sent: it cannot be cancelled";
}
