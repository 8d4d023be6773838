import { createHash } from "node:crypto";
import type { AuditChanges } from "../domain/audit.js";
import { canonicalJson } from "../shared/canonical-json.js";

/** The `prevHash` of the first row. */
export const GENESIS_HASH = "0".repeat(64);

/** A row's fields as they are hashed (and stored): everything but its own hash. */
export interface AuditRowContent {
  /** Position in the chain, a decimal string. */
  id: string;
  /** ISO 8601 with milliseconds, UTC (`Date#toISOString`). */
  at: string;
  actor: string;
  orgId: string | null;
  action: string;
  target: string | null;
  requestId: string | null;
  sourceAddress: string | null;
  changes: AuditChanges;
  prevHash: string;
}

/**
 * The row's hash: hex SHA-256 of the canonical JSON of all its fields, `prevHash` included, so
 * each row commits to the whole chain before it.
 *
 * @example
 * auditHash({ id: "1", at: "2026-11-25T10:00:00.000Z", actor: "admin", orgId: "org_1",
 *   action: "org.registered", target: "org_1", requestId: null, sourceAddress: null,
 *   changes: {}, prevHash: GENESIS_HASH });
 */
export function auditHash(row: AuditRowContent): string {
  const encoded = canonicalJson({
    id: row.id,
    at: row.at,
    actor: row.actor,
    orgId: row.orgId,
    action: row.action,
    target: row.target,
    requestId: row.requestId,
    sourceAddress: row.sourceAddress,
    changes: row.changes,
    prevHash: row.prevHash,
  });
  return createHash("sha256").update(encoded, "utf8").digest("hex");
}
