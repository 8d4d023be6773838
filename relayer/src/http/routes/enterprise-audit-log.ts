import { z } from "zod";
import { AUDIT_PAGE_DEFAULT, listAuditLog } from "../../audit/audit-log-read.js";
import { AUDIT_ACTION_PATTERN, auditRecord } from "../../domain/audit.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const TIME_MESSAGE = "must be an ISO 8601 time such as 2026-11-25T12:00:00Z, or a date";

/** A real calendar date (Date.parse would roll 2026-02-30 over to March). */
function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An ISO 8601 time with a zone (`Z` or `+02:00`), or a date (midnight UTC), as a `Date`. */
const isoTime = z
  .string()
  .max(40, TIME_MESSAGE)
  .regex(ISO_TIME, TIME_MESSAGE)
  .transform((value, ctx) => {
    const [, y, m, d] = ISO_TIME.exec(value)!;
    const ms = Date.parse(value);
    if (!isCalendarDate(Number(y), Number(m), Number(d)) || Number.isNaN(ms)) {
      ctx.addIssue({ code: "custom", message: TIME_MESSAGE });
      return z.NEVER;
    }
    return new Date(ms);
  })
  .optional();

/** `GET /api/enterprise/audit-log` query. */
export const auditLogQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "must be an integer from 1 to 100")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 100, "must be an integer from 1 to 100")
    .optional()
    .describe(`rows per page (default ${AUDIT_PAGE_DEFAULT})`),
  cursor: z.string().max(200, "too long").optional().describe("`nextCursor` of the page before"),
  action: z
    .string()
    .max(64, "must be an action name such as api_key.created")
    .regex(AUDIT_ACTION_PATTERN, "must be an action name such as api_key.created")
    .optional()
    .describe("only this action (`org.registered`, `api_key.revoked`, ...)"),
  from: isoTime.describe("rows at or after this time (ISO 8601, or a date: midnight UTC)"),
  to: isoTime.describe("rows before this time (ISO 8601, or a date: midnight UTC)"),
  orgId: z
    .string()
    .min(1, "must not be empty")
    .max(64, "too long")
    .optional()
    .describe("operator staff: one organization's rows (a key may name only its own)"),
});

/** `GET /api/enterprise/audit-log` response. */
export const auditLogResponse = z.object({
  data: z.array(auditRecord),
  nextCursor: z.string().nullable(),
});

/**
 * `GET /api/enterprise/audit-log`: the organization's audit log with an API key (scope read),
 * or every organization's with the admin token.
 */
export const auditLogRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/audit-log",
  summary: "The audit log: who did what to the organization, newest first",
  docs: {
    operationId: "listAuditLog",
    tag: "Audit log",
    description:
      "Every management and operator action (organization registered, plan changed, suspended " +
      "or resumed; key created or revoked; webhook created, changed or deleted; asset type " +
      "registered; marketplace rescue; ...) is a row, with the actor, the request id, the " +
      "source address and the changed fields (never a secret). Rows are hash-chained: each " +
      "carries the hash of the one before (`npm run audit:verify` checks the chain). With an " +
      "API key: the key's organization only. With `X-Admin-Token` (operator staff): every " +
      "organization, service-wide rows included, or one with `orgId`.",
    errors: {
      400: ["Invalid cursor", `Invalid field: from (${TIME_MESSAGE})`],
      404: ["Organization not found"],
    },
  },
  auth: "apiKeyOrAdmin",
  scopes: ["read"],
  request: { query: auditLogQuery },
  responses: { 200: auditLogResponse, ...apiKeyErrors, 404: errorBody },
  handler: async ({ ctx, principal, query }) =>
    listAuditLog(
      ctx,
      principal === undefined ? { kind: "admin" } : { kind: "org", orgId: principal.orgId },
      query,
    ),
});
