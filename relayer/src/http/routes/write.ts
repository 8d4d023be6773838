import type { Request, Response } from "express";
import type { AuditOrigin } from "../../audit/audit-writer.js";
import type { AppContext } from "../../context.js";
import { writeAccepted } from "../../domain/transaction.js";
import { checkIdempotencyKey } from "../../writes/idempotency.js";
import { WRITE_KINDS, writeResponse, type RegisteredWriteKind } from "../../writes/kinds/index.js";
import type { AnyWriteKind } from "../../writes/kinds/write-kind.js";
import { executeWrite } from "../../writes/write-executor.js";
import type { RequestLocals } from "../request-context.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { TRANSACTION_ROUTES } from "./transactions.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

const writeErrors = {
  ...apiKeyErrors,
  202: writeAccepted,
  409: errorBody,
  500: errorBody,
  503: errorBody,
} as const;

/**
 * Runs a write and answers 200 (final), 202 (async or still pending) or throws. The executor
 * takes it from here: idempotency, the kind's checks, funds, the record (`writes/write-executor.ts`).
 */
async function runWrite(
  ctx: AppContext,
  req: Request,
  res: Response,
  orgId: string,
  kind: AnyWriteKind & Pick<RegisteredWriteKind, "kind">,
  body: unknown,
  origin: AuditOrigin,
): Promise<unknown> {
  const prefer = (req.get("prefer") ?? "").toLowerCase();
  const outcome = await executeWrite(ctx, {
    kind,
    orgId,
    body,
    idempotencyKey: checkIdempotencyKey(req.get("idempotency-key")),
    // Every kind's body takes it (`WRITE_OPTIONS`); the kind's own checks ignore it.
    validForSeconds: (body as { validForSeconds?: number }).validForSeconds,
    respondAsync: /(^|[,\s])respond-async($|[,;\s])/.test(prefer),
    origin,
    requesterUserId:
      (res.locals as { session?: { userId: string | null } }).session?.userId ?? undefined,
    arrival: (res.locals as RequestLocals).arrival,
  });
  // Every answer to a recorded write names it, a failure too (it may have reached the chain).
  const transactionId = outcome.status === "accepted" ? outcome.transactionId : outcome.row.id;
  res.setHeader("X-Transaction-Id", transactionId);
  if (outcome.status === "accepted") {
    res.status(202).setHeader("Location", `/api/v1/transactions/${transactionId}`);
    res.json({ transactionId, status: outcome.state });
    return undefined;
  }
  // A failed write throws its `writeFailure`, the error GET /api/v1/transactions/{id} shows too.
  return writeResponse(outcome.row, outcome.children);
}

/** The route of a write kind: `POST <path>` with the kind's scopes, schemas and docs. */
export function writeRoute(
  kind: AnyWriteKind & Pick<RegisteredWriteKind, "kind">,
): AnyRouteDefinition {
  return defineRoute({
    method: "post",
    path: kind.path,
    summary: kind.summary,
    auth: "apiKey",
    scopes: kind.scopes,
    admitsWrite: true,
    docs: { ...kind.docs, tag: "Writes" },
    request: { body: kind.request },
    responses: { 200: kind.response, ...writeErrors },
    handler: ({ ctx, req, res, principal, body, origin }) =>
      runWrite(ctx, req, res, principal!.orgId, kind, body, origin),
  });
}

/** The write routes, one per registered write kind (`writes/kinds/index.ts`). */
export const WRITE_ROUTES: readonly AnyRouteDefinition[] = WRITE_KINDS.map(writeRoute);

/** Everything this module group serves: the writes and `GET /api/v1/transactions/{id}` (mounted by app.ts). */
export const WRITE_API_ROUTES: readonly AnyRouteDefinition[] = [
  ...WRITE_ROUTES,
  ...TRANSACTION_ROUTES,
];
