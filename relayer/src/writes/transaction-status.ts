import type { AppContext } from "../context.js";
import { isFinal, type TxAttempt } from "../engine/tx-lifecycle.js";
import { isGroupRow } from "../engine/tx-rows.js";
import type { TxRow } from "../engine/tx-store.js";
import {
  STUCK_REASONS,
  type StuckReason,
  type TransactionAttempt,
  type TransactionState,
  type TransactionStatus,
} from "../domain/transaction.js";
import { NotFoundError, type BaseError } from "../errors.js";
import { writeResponse } from "./kinds/index.js";
import { writeFailure } from "./write-failure.js";

/** `GET /api/v1/transactions/{id}` before the route adds `errorStatus`, and the failure itself. */
export interface TransactionStatusRead {
  /** The body, but `errorStatus` (the route takes it from `failure`'s class). */
  status: Omit<TransactionStatus, "errorStatus">;
  /** The error the synchronous call answered (or would have), once the API may show it. */
  failure: BaseError | undefined;
}

/**
 * An attempt as the API shows it: every field the engine recorded but the signed bytes (`raw`:
 * not secret, but large; the hash names them). An attempt from before its nonce or type was
 * recorded shows the row's nonce and a null type.
 */
function attemptOf(row: TxRow, attempt: TxAttempt): TransactionAttempt {
  return {
    hash: attempt.hash,
    nonce: attempt.nonce ?? row.nonce,
    type: attempt.type ?? null,
    maxFeePerGas: attempt.maxFeePerGas,
    maxPriorityFeePerGas: attempt.maxPriorityFeePerGas,
    sentAt: attempt.sentAt,
    refused: attempt.refused ?? null,
    superseded: attempt.superseded ?? null,
    outOfGas: attempt.outOfGas === true,
    reorgedFrom: attempt.reorgedFrom ?? null,
  };
}

/**
 * `GET /api/v1/transactions/{id}`: state, hashes, receipt, result and error of a write of the
 * caller's org (another org's id reads as unknown: 404). A write whose receipt block the indexer
 * has not applied yet still reads as `sent`, so `confirmed` always means the read API shows it.
 * A failed write's `error` is its `writeFailure` (`writes/write-failure.ts`), the same error the
 * synchronous call answers with: a lost race reads `Listing not active` here too.
 */
export async function readTransactionStatus(
  ctx: AppContext,
  orgId: string,
  txId: string,
): Promise<TransactionStatusRead> {
  const engine = ctx.engine;
  const store = engine.store;
  const row = /^tx_[0-9a-f]{24}$/.test(txId) ? await store.get(txId) : undefined;
  if (row === undefined || row.orgId !== orgId || row.parentId !== null)
    throw new NotFoundError("Transaction not found");
  const children = isGroupRow(row) ? await store.children(row.id) : [];
  const receiptBlock = await engine.receiptBlockOf(row);
  const visible = receiptBlock === undefined || (await engine.isIndexed(receiptBlock));
  const failure = visible ? writeFailure(row) : undefined;
  const result =
    isFinal(row.state) && visible && failure === undefined ? writeResponse(row, children) : null;
  // Typed as the API's states: an engine state the API does not list fails the type check.
  const state: TransactionState = !visible ? "sent" : row.state;
  // A batch has no chain fields of its own: its broadcasts are its items'.
  const broadcasters = isGroupRow(row) ? children : [row];
  const attempts = broadcasters.flatMap((r) => r.attempts.map((a) => attemptOf(r, a)));
  return {
    status: {
      transactionId: row.id,
      kind: row.kind,
      status: state,
      nonce: row.nonce,
      hashes: attempts.map((a) => a.hash),
      attempts,
      receipt: visible ? (row.receipt ?? null) : null,
      result,
      error: failure?.message ?? null,
      lastError: row.lastError,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      sentAt: row.sentAt?.toISOString() ?? null,
      // Like `receipt`: not before the indexer has applied its block (the state reads `sent`).
      minedAt: visible ? (row.minedAt?.toISOString() ?? null) : null,
      confirmations: {
        blocksAbove:
          visible && receiptBlock !== undefined && engine.blocks.head >= receiptBlock
            ? engine.blocks.head - receiptBlock
            : null,
        required: ctx.config.confirmations,
      },
      confirmedAt: row.confirmedAt?.toISOString() ?? null,
      failedAt: row.failedAt?.toISOString() ?? null,
      // Only while it is still out: a write that ended is no longer stuck.
      stuck:
        row.stuckSince !== null && (row.state === "sent" || row.state === "mined")
          ? { since: row.stuckSince.toISOString(), reason: stuckReasonOf(row.stuckReason) }
          : null,
    },
    failure,
  };
}

/** The stored reason of a stuck mark (rows marked before the reasons were stored say `fee-cap`). */
function stuckReasonOf(stored: string | null): StuckReason {
  return (STUCK_REASONS as readonly string[]).includes(stored ?? "")
    ? (stored as StuckReason)
    : "fee-cap";
}
