import type { AppContext } from "../context.js";
import type { Scope } from "../domain/scope.js";
import { ForbiddenError, NotFoundError, TransactionStateError } from "../errors.js";
import { isFinal, type TxState } from "../engine/tx-lifecycle.js";
import { writeKindOf } from "./kinds/index.js";
import { readTransactionStatus, type TransactionStatusRead } from "./transaction-status.js";

/** A transaction id as the API hands them out (`engine/tx-ids.ts`). */
const TX_ID = /^tx_[0-9a-f]{24}$/;

/**
 * `POST /api/v1/transactions/{id}/cancel` (docs/api-decisions.md "Cancelling a write"): ends a
 * write of the caller's organization that nothing was sent of, `cancelled` at once (nothing on
 * the chain, its reserved funds free, `transaction.cancelled` sent), through
 * `TxStore.cancelUnsent`, which never races the engine's sender.
 *
 * - Another organization's write, a batch's item, or an id that is not a write: 404.
 * - The caller must hold a scope of the write's kind (`mayWrite`, checked by the route): 403.
 * - Already cancelled: the same answer again (cancelling twice answers the first's outcome).
 * - Final in another state (`confirmed`, `failed`, `replaced`): 409 with its state.
 * - Sent or mined (a nonce and a signed attempt that may be in a pool): 409 with its state; the
 *   engine cannot take back a transaction it broadcast (cancelling a sent write by a
 *   replacement on its nonce is not built yet).
 *
 * @param mayWrite whether the caller may make a write of these scopes (any one of them)
 * @returns the write's status, as `GET /api/v1/transactions/{id}` shows it
 */
export async function cancelWrite(
  ctx: AppContext,
  orgId: string,
  txId: string,
  mayWrite: (scopes: readonly Scope[]) => boolean,
): Promise<TransactionStatusRead> {
  const store = ctx.engine.store;
  const row = TX_ID.test(txId) ? await store.get(txId) : undefined;
  if (row === undefined || row.orgId !== orgId || row.parentId !== null)
    throw new NotFoundError("Transaction not found");
  const kind = writeKindOf(row.kind);
  // The engine's own rows (a nonce gap's filler) are no caller's write to cancel.
  if (kind === undefined) throw new TransactionStateError(refusal(row.state), row.state);
  if (!mayWrite(kind.scopes))
    throw new ForbiddenError("Insufficient scope", { details: { needed: kind.scopes } });
  let state = row.state;
  if (state === "queued") {
    const outcome = await store.cancelUnsent(orgId, txId);
    if (outcome === undefined) throw new NotFoundError("Transaction not found");
    state = outcome.state;
    // The wallet's step loads its rows again: a round it was building is refused and rebuilt.
    if (outcome.cancelled) ctx.engine.submit(outcome.walletId);
  }
  if (state !== "cancelled") throw new TransactionStateError(refusal(state), state);
  return readTransactionStatus(ctx, orgId, txId);
}

/** Why a write in `state` cannot be cancelled, in words. */
function refusal(state: TxState): string {
  if (isFinal(state)) return `Transaction already ${state}`;
  return state === "mined"
    ? "Transaction already mined: it cannot be cancelled"
    : "Transaction already sent: only a write not sent yet can be cancelled";
}
