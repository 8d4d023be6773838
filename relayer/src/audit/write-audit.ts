import type { DbTransaction } from "../db/client.js";
import {
  appendAudit,
  type AppendedAudit,
  type AuditEntry,
  type AuditOrigin,
} from "./audit-writer.js";

/**
 * Appends the audit row of a write that is a management act (`WriteKindModule.audit`), naming
 * its transaction, in the database transaction that records the write
 * (`WriteRequest.alongside`): the act and its row are stored together or not at all, and a replay
 * of the same write (same `Idempotency-Key`) records nothing, so it appends nothing.
 */
export async function appendWriteAudit(
  tx: DbTransaction,
  origin: AuditOrigin,
  orgId: string,
  entry: Omit<AuditEntry, "orgId">,
  transactionId: string,
): Promise<AppendedAudit> {
  return appendAudit(tx, origin, {
    orgId,
    action: entry.action,
    target: entry.target,
    changes: { ...entry.changes, transactionId },
  });
}
