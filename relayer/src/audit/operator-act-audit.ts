import { sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "../db/client.js";
import { AUDIT_ACTIONS, type AuditChanges } from "../domain/audit.js";
import {
  appendAudit,
  AuditEntryError,
  type AppendedAudit,
  type AuditEntry,
  type AuditOrigin,
} from "./audit-writer.js";

/**
 * The audit rows of an act the operator account sends on chain (a freeze, a rescue, an asset
 * type, a registration's role grant), which no database transaction can hold together with the
 * act (docs/audit-log.md "Acts on chain"):
 *
 * 1. `operator_tx.attempted`, appended and committed after the transaction is signed and before
 *    it is broadcast: who, what (`act`, the act's fields), the target, the operator account, the
 *    nonce and the signed transaction's hash. Nothing is sent unless this row is stored, so a
 *    relayer killed at any later point leaves the hash to look up on chain.
 * 2. Its outcome, naming the attempt (`attemptId`) and the hash: the act's own row (`asset.frozen`,
 *    `marketplace.token_rescued`, ...) with `blockNumber` once mined; `operator_tx.failed` when the
 *    node refused the broadcast (`outcome: "rejected"`, nothing on chain) or the transaction
 *    reverted (`outcome: "reverted"`); `operator_tx.unconfirmed` when the relayer lost sight of it
 *    (broadcast answer or receipt look-up failed, or not mined in time): it may still be mined.
 *
 * An attempt left without a final outcome (a relayer killed after the broadcast) is settled from
 * the chain at the next start (`settle-operator-attempts.ts`).
 */

/** An act to audit: who, and the row it appends once mined (its `changes` gain the hash). */
export interface OperatorAct {
  origin: AuditOrigin;
  entry: AuditEntry;
}

/** The signed transaction an attempt row names. */
export interface SignedOperatorTx {
  hash: string;
  from: string;
  nonce: number;
}

/** How an attempted operator transaction ended, as far as the relayer saw. */
export type OperatorTxOutcome =
  | { status: "mined"; blockNumber: number }
  | { status: "reverted"; blockNumber: number }
  | { status: "rejected"; reason: string }
  | { status: "unconfirmed"; reason: string };

/** The attempt row's own fields, beside the act's (which never use these names). */
export const ATTEMPT_FIELD_NAMES = ["act", "operator", "nonce", "txHash"] as const;

/**
 * Appends and commits the `operator_tx.attempted` row of `act`, before its broadcast: the act's
 * fields, `act` (its action), `operator` (the sending account), `nonce` and `txHash`.
 *
 * @returns the row (its `id` is the outcome's `attemptId`)
 * @throws AuditEntryError when the act's fields use an attempt field's name; whatever the append
 *   throws: the caller then sends nothing
 */
export async function appendOperatorAttempt(
  db: Db,
  act: OperatorAct,
  tx: SignedOperatorTx,
): Promise<AppendedAudit> {
  const clash = ATTEMPT_FIELD_NAMES.find((field) => act.entry.changes?.[field] !== undefined);
  if (clash !== undefined)
    throw new AuditEntryError(`Audit entry changes.${clash} is an attempt row's own field`);
  return appendAudit(db, act.origin, {
    orgId: act.entry.orgId,
    action: AUDIT_ACTIONS.operatorTxAttempted,
    target: act.entry.target,
    changes: {
      act: act.entry.action,
      ...act.entry.changes,
      operator: tx.from,
      nonce: tx.nonce,
      txHash: tx.hash,
    },
  });
}

/**
 * Appends the outcome row of an attempt (see the module comment), unless a final one (the act's
 * own row or `operator_tx.failed`) already names it: the check runs under the chain head's lock,
 * so the request that sent the act and `settleOperatorAttempts` in another process append it
 * once. Never throws: the act's record is already safe in the attempt row, and the act's answer
 * (its hash) must reach the caller even when the database fails now; a failure is logged with
 * the hash.
 *
 * @returns whether a row was appended
 */
export async function appendOperatorOutcome(
  db: Db,
  logger: Logger,
  act: OperatorAct,
  attemptId: string,
  txHash: string,
  outcome: OperatorTxOutcome,
): Promise<boolean> {
  const link: AuditChanges = { attemptId, txHash };
  const entry: AuditEntry =
    outcome.status === "mined"
      ? {
          ...act.entry,
          changes: { ...act.entry.changes, ...link, blockNumber: outcome.blockNumber },
        }
      : {
          orgId: act.entry.orgId,
          action:
            outcome.status === "unconfirmed"
              ? AUDIT_ACTIONS.operatorTxUnconfirmed
              : AUDIT_ACTIONS.operatorTxFailed,
          target: act.entry.target,
          changes: {
            act: act.entry.action,
            ...link,
            ...(outcome.status === "unconfirmed"
              ? { reason: outcome.reason }
              : outcome.status === "reverted"
                ? { outcome: "reverted", blockNumber: outcome.blockNumber }
                : { outcome: "rejected", reason: outcome.reason }),
          },
        };
  return db
    .transaction(async (tx) => {
      await tx.execute(sql`SELECT 1 FROM audit_chain_head WHERE id = 1 FOR UPDATE`);
      // The (action, id) index finds the act's rows after the attempt.
      const settled = await tx.execute(
        sql`SELECT 1 FROM audit_log
             WHERE action IN (${act.entry.action}, ${AUDIT_ACTIONS.operatorTxFailed})
               AND id > ${attemptId}::bigint AND changes->>'attemptId' = ${attemptId} LIMIT 1`,
      );
      if (settled.rows.length > 0) return false;
      await appendAudit(tx, act.origin, entry);
      return true;
    })
    .catch((err: unknown) => {
      logger.error(
        { err, txHash, attemptId, act: act.entry.action, outcome: outcome.status },
        "audit: the outcome row of an operator transaction was not appended (its attempt row names the hash)",
      );
      return false;
    });
}
