import type { AppContext } from "../context.js";
import { isFinal } from "../chain/tx-lifecycle.js";
import type { TransactionState } from "../domain/transaction.js";
import { NotFoundError, TransactionFailedError, ValidationError } from "../errors.js";
import { writeResponse } from "./kinds/index.js";

/**
 * `GET /api/v1/transactions/{id}`: state, hashes, receipt, result and error of a write of the
 * caller's org (another org's id reads as unknown: 404). A write whose receipt block the indexer
 * has not applied yet still reads as `sent`, so `confirmed` always means the read API shows it.
 */
export async function readTransactionStatus(
  ctx: AppContext,
  orgId: string,
  txId: string,
): Promise<Record<string, unknown>> {
  const runtime = ctx.tx;
  const store = runtime.store;
  const row = /^tx_[0-9a-f]{24}$/.test(txId) ? await store.get(txId) : undefined;
  if (row === undefined || row.orgId !== orgId || row.parentId !== null)
    throw new NotFoundError("Transaction not found");
  const children = row.kind === "batch-issue" ? await store.children(row.id) : [];
  let result: unknown = null;
  let error: string | null = row.error === null ? null : `Transaction failed: ${row.error}`;
  const receiptBlock = await runtime.receiptBlockOf(row);
  const visible = receiptBlock === undefined || (await runtime.isIndexed(receiptBlock));
  if (isFinal(row.state) && visible) {
    try {
      result = writeResponse(row, children);
    } catch (e) {
      if (e instanceof TransactionFailedError) error = e.message;
      // A lost race (`Listing not active`): the status keeps `Transaction failed: <reason>`.
      else if (!(e instanceof ValidationError)) throw e;
    }
  }
  // Typed as the API's states: an engine state the API does not list fails the type check.
  const status: TransactionState = !visible ? "sent" : row.state;
  return {
    transactionId: row.id,
    kind: row.kind,
    status,
    nonce: row.nonce,
    hashes:
      row.kind === "batch-issue"
        ? children.flatMap((c) => c.attempts.map((a) => a.hash))
        : row.attempts.map((a) => a.hash),
    receipt: visible ? (row.receipt ?? null) : null,
    result,
    error: visible ? error : null,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
    confirmedAt: row.confirmedAt?.toISOString() ?? null,
    failedAt: row.failedAt?.toISOString() ?? null,
  };
}
