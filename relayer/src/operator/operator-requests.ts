import { and, asc, eq, gt, sql } from "drizzle-orm";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import type { AppContext } from "../context.js";
import { approvalExpiryMsOf } from "../domain/approval-expiry.js";
import { operatorRequests } from "../db/schema/index.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import {
  BaseError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from "../errors.js";
import { parseAddress, parseId } from "../shared/parse-input.js";
import { newId } from "../shared/ids.js";
import { forceTransferAsset, parseReason, setAssetFrozen } from "./compliance.js";

/**
 * Operator four-eyes (docs/people.md "Operator four-eyes"): a forced transfer, freeze or unfreeze
 * asked for by one operator person waits for a second, different operator person with role
 * `compliance` or `operator-admin`; asked for with the admin token, it waits for one operator
 * person. The request is checked when it is made (a bad id, address or reason, or an asset that
 * does not exist, answers at once), kept here, and carried out by the approver's request, whose
 * person the act's audit row names. A request left pending `ctx.config.approvalExpiryMs` is
 * expired (read from `expires_at`: no worker needed).
 */

/** The acts that wait for a second operator person. */
export const OPERATOR_REQUEST_KINDS = ["forced-transfer", "freeze", "unfreeze"] as const;

/** One kind of operator request. */
export type OperatorRequestKind = (typeof OPERATOR_REQUEST_KINDS)[number];

/** An operator request's state as answered. */
export type OperatorRequestState =
  | "pending_approval"
  | "executing"
  | "executed"
  | "rejected"
  | "failed"
  | "expired";

/** What an operator request asks for. */
export interface OperatorRequestBody {
  reason: string;
  toAddress?: string;
}

/** An operator request as the API answers it. */
export interface OperatorRequestView {
  requestId: string;
  kind: OperatorRequestKind;
  tokenId: string;
  request: OperatorRequestBody;
  status: OperatorRequestState;
  requestedBy: string;
  decidedBy: string | null;
  /** The act's answer once carried out (as the route answers it without four-eyes). */
  result: Record<string, unknown> | null;
  error: string | null;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
}

/** The operator person deciding or asking (`auth/require-person.ts`'s operator principal). */
export interface OperatorActor {
  userId: string;
  email: string;
}

type Row = typeof operatorRequests.$inferSelect;

function viewOf(row: Row): OperatorRequestView {
  const expired = row.state === "pending_approval" && row.expiresAt.getTime() <= Date.now();
  return {
    requestId: row.id,
    kind: row.kind as OperatorRequestKind,
    tokenId: row.tokenId,
    request: row.body as OperatorRequestBody,
    status: expired ? "expired" : (row.state as OperatorRequestState),
    requestedBy: row.requestedBy,
    decidedBy: row.decidedBy,
    result: (row.result as Record<string, unknown> | null) ?? null,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    decidedAt: row.decidedAt?.toISOString() ?? null,
  };
}

/**
 * Records an operator request after the checks the act would make first: the token id, the
 * reason, a forced transfer's address, and that the asset exists. Appends
 * `operator_request.created` naming who asked.
 *
 * @param requester the operator person who asked; undefined for the admin token
 * @throws ValidationError; NotFoundError `Asset not found`
 */
export async function requestOperatorAct(
  ctx: AppContext,
  input: { kind: OperatorRequestKind; tokenId: string; reason: string; toAddress?: string },
  origin: AuditOrigin,
  requester: OperatorActor | undefined,
): Promise<OperatorRequestView> {
  const tokenId = parseId(input.tokenId, "tokenId");
  const body: OperatorRequestBody = { reason: parseReason(input.reason) };
  if (input.kind === "forced-transfer") {
    if (input.toAddress === undefined)
      throw new ValidationError("Missing required field: toAddress");
    body.toAddress = parseAddress(input.toAddress, "toAddress");
  }
  if ((await ctx.engine.reader.ownerOf(tokenId)) === undefined)
    throw new NotFoundError("Asset not found");
  const id = newId("opr");
  const expiresAt = new Date(Date.now() + approvalExpiryMsOf(ctx.config));
  return ctx.database.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(operatorRequests)
      .values({
        id,
        kind: input.kind,
        tokenId: tokenId.toString(),
        body,
        requestedBy: origin.actor,
        requesterUserId: requester?.userId ?? null,
        expiresAt,
      })
      .returning();
    await appendAudit(tx, origin, {
      orgId: null,
      action: AUDIT_ACTIONS.operatorRequestCreated,
      target: id,
      changes: { kind: input.kind, tokenId: tokenId.toString(), ...body },
    });
    return viewOf(row!);
  });
}

/** The operator requests waiting for a decision (pending, not expired), oldest first, at most 100. */
export async function listPendingOperatorRequests(ctx: AppContext): Promise<OperatorRequestView[]> {
  const rows = await ctx.database.db
    .select()
    .from(operatorRequests)
    .where(
      and(
        eq(operatorRequests.state, "pending_approval"),
        gt(operatorRequests.expiresAt, sql`now()`),
      ),
    )
    .orderBy(asc(operatorRequests.createdAt), asc(operatorRequests.id))
    .limit(100);
  return rows.map(viewOf);
}

/** One operator request; NotFoundError `Operator request not found`. */
export async function readOperatorRequest(
  ctx: AppContext,
  id: string,
): Promise<OperatorRequestView> {
  const rows = await ctx.database.db
    .select()
    .from(operatorRequests)
    .where(eq(operatorRequests.id, id))
    .limit(1);
  if (rows[0] === undefined) throw new NotFoundError("Operator request not found");
  return viewOf(rows[0]);
}

/**
 * Approves or rejects an operator request as `decider`. The decision is taken under the row's
 * lock (of two approvals racing, one decides, the other gets 409). Approved, the act is carried
 * out at once in the approver's name (`origin`), and the request ends `executed` with its answer,
 * or `failed` with the act's error, which is then thrown.
 *
 * @throws NotFoundError; ConflictError `Operator request is <state>` when no longer pending;
 *   ForbiddenError for the person who asked; the act's errors
 */
export async function decideOperatorRequest(
  ctx: AppContext,
  id: string,
  decision: "approve" | "reject",
  decider: OperatorActor,
  origin: AuditOrigin,
): Promise<OperatorRequestView> {
  const decided = await ctx.database.db.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(operatorRequests)
      .where(eq(operatorRequests.id, id))
      .for("update")
      .limit(1);
    const row = rows[0];
    if (row === undefined) throw new NotFoundError("Operator request not found");
    const state = viewOf(row).status;
    if (state !== "pending_approval") throw new ConflictError(`Operator request is ${state}`);
    if (row.requesterUserId === decider.userId)
      throw new ForbiddenError(
        "The operator person who requested an act cannot approve or reject it",
      );
    const [updated] = await tx
      .update(operatorRequests)
      .set({
        state: decision === "approve" ? "executing" : "rejected",
        decidedBy: origin.actor,
        deciderUserId: decider.userId,
        decidedAt: sql`now()`,
      })
      .where(eq(operatorRequests.id, id))
      .returning();
    await appendAudit(tx, origin, {
      orgId: null,
      action:
        decision === "approve"
          ? AUDIT_ACTIONS.operatorRequestApproved
          : AUDIT_ACTIONS.operatorRequestRejected,
      target: id,
      changes: { kind: row.kind, tokenId: row.tokenId, requestedBy: row.requestedBy },
    });
    return updated!;
  });
  if (decision === "reject") return viewOf(decided);
  const body = decided.body as OperatorRequestBody;
  try {
    const result =
      decided.kind === "forced-transfer"
        ? await forceTransferAsset(
            ctx,
            { tokenId: decided.tokenId, toAddress: body.toAddress ?? "", reason: body.reason },
            origin,
          )
        : await setAssetFrozen(
            ctx,
            { tokenId: decided.tokenId, frozen: decided.kind === "freeze", reason: body.reason },
            origin,
          );
    const [done] = await ctx.database.db
      .update(operatorRequests)
      .set({ state: "executed", result })
      .where(eq(operatorRequests.id, id))
      .returning();
    return viewOf(done!);
  } catch (error) {
    await ctx.database.db
      .update(operatorRequests)
      .set({
        state: "failed",
        error: error instanceof BaseError ? error.message : "Internal error",
      })
      .where(eq(operatorRequests.id, id));
    throw error;
  }
}
