import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import {
  appendAudit,
  type AppendedAudit,
  type AuditEntry,
  type AuditOrigin,
} from "./audit-writer.js";

/**
 * Appends the audit row of a write that is a management act (`WriteKindModule.audit`), naming
 * its transaction, once per transaction: a replay of the same write (same `Idempotency-Key`)
 * finds the row and appends nothing. The check runs under the chain head's lock, so two replays
 * at once still append one row.
 *
 * @returns the appended row, or undefined when the transaction already had one
 */
export async function appendWriteAudit(
  db: Db,
  origin: AuditOrigin,
  orgId: string,
  entry: Omit<AuditEntry, "orgId">,
  transactionId: string,
): Promise<AppendedAudit | undefined> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT 1 FROM audit_chain_head WHERE id = 1 FOR UPDATE`);
    const seen = await tx.execute(
      sql`SELECT 1 FROM audit_log WHERE action = ${entry.action} AND org_id = ${orgId}
           AND changes->>'transactionId' = ${transactionId} LIMIT 1`,
    );
    if (seen.rows.length > 0) return undefined;
    return appendAudit(tx, origin, {
      orgId,
      action: entry.action,
      target: entry.target,
      changes: { ...entry.changes, transactionId },
    });
  });
}
