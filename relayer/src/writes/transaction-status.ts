import type { AppContext } from "../context.js";
import { txRuntimeOf } from "../chain/tx-runtime.js";
import { NotFoundError, TransactionFailedError } from "../errors.js";
import { writeResponse } from "./kinds/index.js";

/**
 * `GET /api/v1/transactions/{id}`: state, hashes, receipt, result and error of a write of the
 * caller's org (another org's id reads as unknown: 404).
 */
export async function transactionStatus(
  ctx: AppContext,
  orgId: string,
  txId: string,
): Promise<Record<string, unknown>> {
  const store = txRuntimeOf(ctx).store;
  const row = /^tx_[0-9a-f]{24}$/.test(txId) ? await store.get(txId) : undefined;
  if (row === undefined || row.orgId !== orgId || row.parentId !== null)
    throw new NotFoundError("Transaction not found");
  const children = row.kind === "batch-issue" ? await store.children(row.id) : [];
  let result: unknown = null;
  let error: string | null = row.error === null ? null : `Transaction failed: ${row.error}`;
  if (["confirmed", "mined", "failed", "replaced"].includes(row.state)) {
    try {
      result = writeResponse(row, children);
    } catch (e) {
      if (e instanceof TransactionFailedError) error = e.message;
      else throw e;
    }
  }
  const status =
    row.kind === "batch-issue" &&
    row.state === "queued" &&
    children.some((c) => c.attempts.length > 0)
      ? "sent"
      : row.state;
  return {
    transactionId: row.id,
    kind: row.kind,
    status,
    nonce: row.nonce,
    hashes:
      row.kind === "batch-issue"
        ? children.flatMap((c) => c.attempts.map((a) => a.hash))
        : row.attempts.map((a) => a.hash),
    receipt: row.receipt ?? null,
    result,
    error,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
    confirmedAt: row.confirmedAt?.toISOString() ?? null,
    failedAt: row.failedAt?.toISOString() ?? null,
  };
}
