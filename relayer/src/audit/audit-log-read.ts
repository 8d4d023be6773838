import { and, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { auditLog, orgs } from "../db/schema/index.js";
import type { AuditRecord } from "../domain/audit.js";
import { NotFoundError, ValidationError } from "../errors.js";
import { decodePageCursor, encodePageCursor, type Page } from "../shared/cursor.js";

/** Rows per page when `limit` is not given. */
export const AUDIT_PAGE_DEFAULT = 50;

/** The largest id a cursor may carry (`bigint`). */
const MAX_ID = 2n ** 63n - 1n;

/** Who is reading: one organization's key, or operator staff (every organization). */
export type AuditReader = { kind: "org"; orgId: string } | { kind: "admin" };

/** Filters of `GET /api/enterprise/audit-log` (already validated). */
export interface AuditLogFilters {
  limit?: number | undefined;
  cursor?: string | undefined;
  action?: string | undefined;
  /** Rows at or after this time. */
  from?: Date | undefined;
  /** Rows before this time. */
  to?: Date | undefined;
  /** One organization (operator staff; an organization's key may name only its own). */
  orgId?: string | undefined;
}

type AuditRow = typeof auditLog.$inferSelect;

function recordOf(row: AuditRow): AuditRecord {
  return {
    id: row.id.toString(),
    at: row.at.toISOString(),
    actor: row.actor,
    orgId: row.orgId,
    action: row.action,
    target: row.target,
    requestId: row.requestId,
    sourceAddress: row.sourceAddress,
    changes: row.changes as Record<string, unknown>,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/**
 * A page of the audit log, newest first. An organization's key sees only its organization's
 * rows (naming another organization answers 404, as for any other organization's id); operator
 * staff see every row, service-wide ones included, or one organization's with `orgId`.
 *
 * @throws ValidationError `Invalid cursor`; NotFoundError `Organization not found`
 */
export async function listAuditLog(
  ctx: AppContext,
  reader: AuditReader,
  filters: AuditLogFilters,
): Promise<Page<AuditRecord>> {
  const limit = filters.limit ?? AUDIT_PAGE_DEFAULT;
  const before =
    filters.cursor === undefined ? undefined : BigInt(decodePageCursor(filters.cursor));
  if (before !== undefined && before > MAX_ID) throw new ValidationError("Invalid cursor");
  if (filters.from !== undefined && filters.to !== undefined && filters.from > filters.to)
    throw new ValidationError("Invalid field: to (must not be before from)");

  let orgId: string | undefined;
  if (reader.kind === "org") {
    if (filters.orgId !== undefined && filters.orgId !== reader.orgId)
      throw new NotFoundError("Organization not found");
    orgId = reader.orgId;
  } else if (filters.orgId !== undefined) {
    const found = await ctx.database.db
      .select({ id: orgs.id })
      .from(orgs)
      .where(eq(orgs.id, filters.orgId))
      .limit(1);
    if (found.length === 0) throw new NotFoundError("Organization not found");
    orgId = filters.orgId;
  }

  const conditions: SQL[] = [];
  if (orgId !== undefined) conditions.push(eq(auditLog.orgId, orgId));
  if (filters.action !== undefined) conditions.push(eq(auditLog.action, filters.action));
  if (filters.from !== undefined) conditions.push(gte(auditLog.at, filters.from));
  if (filters.to !== undefined) conditions.push(lt(auditLog.at, filters.to));
  if (before !== undefined) conditions.push(lt(auditLog.id, before));
  const rows = await ctx.database.db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(recordOf),
    nextCursor:
      rows.length > limit && last !== undefined ? encodePageCursor(last.id.toString()) : null,
  };
}
