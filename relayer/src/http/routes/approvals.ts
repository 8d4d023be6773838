import { z } from "zod";
import { BaseError, ConflictError, NotFoundError } from "../../errors.js";
import {
  decideHeld,
  listPendingHeld,
  markHeldFailed,
  readHeld,
  type HeldWrite,
} from "../../policy/approvals.js";
import { writeKindOf } from "../../writes/kinds/index.js";
import { executeWrite } from "../../writes/write-executor.js";
import type { AppContext } from "../../context.js";
import type { AuditOrigin } from "../../audit/audit-writer.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody, timestampSchema } from "./schemas.js";

/**
 * Maker-checker approval of writes the organization's policy holds (docs/policy.md
 * "Approvals"): a signed-in approver or owner approves or rejects; once enough people approve,
 * the write is recorded under its held id and the engine sends it.
 */

/** A held write as `GET /api/v1/transactions/{id}` and the decisions answer it. */
export const heldTransactionStatus = z.object({
  transactionId: z.string(),
  kind: z.string(),
  status: z
    .enum(["pending_approval", "approved", "rejected", "expired", "failed"])
    .describe("approved: recorded and sent (its transaction shows from then on)"),
  approvalsRequired: z.number().int(),
  approvals: z.array(z.object({ userId: z.string(), email: z.string(), at: timestampSchema })),
  requestedBy: z.string().describe("the key id, or `usr_… (email)` of the person who asked"),
  request: z
    .record(z.string(), z.unknown())
    .describe("what the write asks for: its request body, without any password or secret field"),
  error: z.string().nullable().describe("why an approved write could not be recorded"),
  createdAt: timestampSchema,
  expiresAt: timestampSchema.describe("APPROVAL_EXPIRY_SECONDS (24 h) after it was held"),
});

/** Body fields an approver never needs to see (an asset's password). */
const HIDDEN_FIELD = /password|secret/i;

/** A held write's request body as an approver reads it: every field but secrets. */
function shownBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return {};
  return Object.fromEntries(Object.entries(body).filter(([key]) => !HIDDEN_FIELD.test(key)));
}

/** The held write's public shape. */
export function describeHeld(held: HeldWrite): z.output<typeof heldTransactionStatus> {
  return {
    transactionId: held.id,
    kind: held.kind,
    status: held.state,
    approvalsRequired: held.approvers,
    approvals: held.approvals,
    requestedBy: held.requestedBy,
    request: shownBody(held.body),
    error: held.error,
    createdAt: held.createdAt.toISOString(),
    expiresAt: held.expiresAt.toISOString(),
  };
}

/** The held write `id` of `orgId`, described; NotFoundError when there is none. */
export async function heldStatus(ctx: AppContext, orgId: string, id: string) {
  const held = await readHeld(ctx.database, orgId, id);
  if (held === undefined) throw new NotFoundError("Transaction not found");
  return describeHeld(held);
}

/** Records an approved held write: its own checks and the policy judge it now. */
async function recordApproved(
  ctx: AppContext,
  held: HeldWrite,
  origin: AuditOrigin,
): Promise<void> {
  const kind = writeKindOf(held.kind);
  if (kind === undefined) throw new Error(`held write ${held.id} of unknown kind ${held.kind}`);
  // A deadline (`validForSeconds`) runs from the request, not from the approval: what is left of
  // it goes with the write, and a deadline that passed while the write waited ends it here.
  const asked = (held.body as { validForSeconds?: unknown } | null)?.validForSeconds;
  const left =
    typeof asked === "number"
      ? Math.floor(asked - (Date.now() - held.createdAt.getTime()) / 1_000)
      : undefined;
  try {
    if (left !== undefined && left < 1) {
      throw new ConflictError("The write's deadline (validForSeconds) passed before its approval");
    }
    await executeWrite(ctx, {
      kind,
      orgId: held.orgId,
      body: held.body,
      idempotencyKey: undefined,
      respondAsync: true,
      origin,
      approved: { transactionId: held.id },
      validForSeconds: left,
    });
  } catch (error) {
    // Refused now (the token moved, funds, the policy's limit): the write ends `failed`.
    await markHeldFailed(
      ctx.database,
      held.id,
      error instanceof BaseError ? error.message : "Internal error",
    );
    throw error;
  }
}

const decisionErrors = { 401: errorBody, 403: errorBody, 404: errorBody, 409: errorBody } as const;
const params = z.object({ id: z.string().max(64) });

/** `POST /api/v1/transactions/:id/approve` (a signed-in approver or owner). */
export const approveRoute = defineRoute({
  method: "post",
  path: "/api/v1/transactions/:id/approve",
  summary: "Approve a write the organization's policy holds",
  docs: {
    operationId: "approveTransaction",
    tag: "Transactions",
    description:
      "When the rule's count of distinct people is reached, the write is recorded and sent. " +
      "The person who requested it gets 403; a write no longer pending answers 409 with its state.",
    errors: {
      403: ["The person who requested a write cannot approve or reject it"],
      409: ["Transaction is rejected", "Already approved by you"],
    },
  },
  auth: "person",
  roles: ["approver", "owner"],
  scopes: [],
  request: { params },
  responses: { 200: heldTransactionStatus, 400: errorBody, ...decisionErrors },
  handler: async ({ ctx, person, params: { id }, origin }) => {
    const decider = { orgId: person!.orgId, userId: person!.userId, email: person!.email };
    const { held, reached } = await decideHeld(ctx.database, decider, id, "approve", origin);
    if (reached) await recordApproved(ctx, held, origin);
    return describeHeld(held);
  },
});

/** `POST /api/v1/transactions/:id/reject` (a signed-in approver or owner). */
export const rejectRoute = defineRoute({
  method: "post",
  path: "/api/v1/transactions/:id/reject",
  summary: "Reject a write the organization's policy holds",
  docs: {
    operationId: "rejectTransaction",
    tag: "Transactions",
    errors: {
      403: ["The person who requested a write cannot approve or reject it"],
      409: ["Transaction is approved"],
    },
  },
  auth: "person",
  roles: ["approver", "owner"],
  scopes: [],
  request: { params },
  responses: { 200: heldTransactionStatus, ...decisionErrors },
  handler: async ({ ctx, person, params: { id }, origin }) => {
    const decider = { orgId: person!.orgId, userId: person!.userId, email: person!.email };
    return describeHeld((await decideHeld(ctx.database, decider, id, "reject", origin)).held);
  },
});

/** `GET /api/enterprise/approvals` (scope read, or any signed-in person): writes awaiting approval. */
export const listApprovalsRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/approvals",
  summary: "Writes the organization's policy holds, waiting for approval",
  docs: {
    operationId: "listApprovals",
    tag: "Transactions",
    description:
      "Pending and not expired, oldest first, at most 100 (the console's approvals queue).",
  },
  auth: "apiKey",
  scopes: ["read"],
  request: {},
  responses: { 200: z.object({ approvals: z.array(heldTransactionStatus) }), ...apiKeyErrors },
  handler: async ({ ctx, principal }) => ({
    approvals: (await listPendingHeld(ctx.database, principal!.orgId)).map(describeHeld),
  }),
});
