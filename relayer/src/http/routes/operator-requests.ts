import type { Response } from "express";
import { z } from "zod";
import type { AuditOrigin } from "../../audit/audit-writer.js";
import type { OperatorPrincipal } from "../../auth/require-person.js";
import type { AppContext } from "../../context.js";
import {
  decideOperatorRequest,
  listPendingOperatorRequests,
  OPERATOR_REQUEST_KINDS,
  readOperatorRequest,
  requestOperatorAct,
  type OperatorRequestKind,
} from "../../operator/operator-requests.js";
import { notFoundErrors } from "../openapi/operation-metadata.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { errorBody, sentErrorBody, timestampSchema } from "./schemas.js";

/**
 * Operator four-eyes (docs/people.md "Operator four-eyes"): the operator requests a forced
 * transfer, freeze or unfreeze leaves, listed and read by operator staff (the admin token or any
 * operator session), approved or rejected by a signed-in operator person with role `compliance`
 * or `operator-admin` other than the one who asked.
 */

/** An operator request as answered. */
export const operatorRequestSchema = z.object({
  requestId: z.string(),
  kind: z.enum(OPERATOR_REQUEST_KINDS),
  tokenId: z.string(),
  request: z
    .object({ reason: z.string(), toAddress: z.string().optional() })
    .describe("what the act asks for, checked when it was asked"),
  status: z
    .enum(["pending_approval", "executing", "executed", "rejected", "failed", "expired"])
    .describe("executed: approved and carried out (`result`); failed: approved, refused (`error`)"),
  requestedBy: z.string().describe("`admin` (the admin token) or `usr_… (email)`"),
  decidedBy: z.string().nullable().describe("`usr_… (email)` of the person who decided"),
  result: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("the act's answer once carried out, as the route answers without four-eyes"),
  error: z.string().nullable(),
  createdAt: timestampSchema,
  expiresAt: timestampSchema.describe("APPROVAL_EXPIRY_SECONDS (24 h) after it was asked"),
  decidedAt: timestampSchema.nullable(),
});

/**
 * Answers 202 with the operator request an act leaves when four-eyes is on (the default), with a
 * `Location` to follow it.
 */
export async function answerOperatorRequest(
  ctx: AppContext,
  res: Response,
  input: { kind: OperatorRequestKind; tokenId: string; reason: string; toAddress?: string },
  origin: AuditOrigin,
  operator: OperatorPrincipal | undefined,
): Promise<undefined> {
  const view = await requestOperatorAct(ctx, input, origin, operator);
  res
    .status(202)
    .setHeader("Location", `/api/enterprise/operator-requests/${view.requestId}`)
    .json(view);
  return undefined;
}

/** Whether operator acts wait for a second person (`OPERATOR_FOUR_EYES`, on unless off). */
export function fourEyesOn(ctx: AppContext): boolean {
  return ctx.config.operatorFourEyes !== false;
}

const params = z.object({ requestId: z.string().min(1).max(64) });

/** `GET /api/enterprise/operator-requests`: the requests waiting for a decision. */
export const listOperatorRequestsRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/operator-requests",
  summary: "List the operator requests waiting for a second operator person (operator staff)",
  docs: {
    operationId: "listOperatorRequests",
    tag: "Compliance",
    description:
      "Forced transfers, freezes and unfreezes waiting for approval (pending and not expired), " +
      "oldest first, at most 100.",
  },
  auth: "admin",
  scopes: [],
  request: {},
  responses: {
    200: z.object({ requests: z.array(operatorRequestSchema) }),
    401: errorBody,
    403: errorBody,
  },
  handler: async ({ ctx }) => ({ requests: await listPendingOperatorRequests(ctx) }),
});

/** `GET /api/enterprise/operator-requests/:requestId`. */
export const getOperatorRequestRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/operator-requests/:requestId",
  summary: "One operator request (operator staff)",
  docs: {
    operationId: "getOperatorRequest",
    tag: "Compliance",
    errors: notFoundErrors("Operator request"),
  },
  auth: "admin",
  scopes: [],
  request: { params },
  responses: { 200: operatorRequestSchema, 401: errorBody, 403: errorBody, 404: errorBody },
  handler: async ({ ctx, params }) => readOperatorRequest(ctx, params.requestId),
});

function decisionRoute(decision: "approve" | "reject") {
  return defineRoute({
    method: "post",
    path: `/api/enterprise/operator-requests/:requestId/${decision}`,
    summary:
      decision === "approve"
        ? "Approve an operator request and carry it out (a second operator person)"
        : "Reject an operator request (a second operator person)",
    docs: {
      operationId: decision === "approve" ? "approveOperatorRequest" : "rejectOperatorRequest",
      tag: "Compliance",
      description:
        (decision === "approve"
          ? "Carries the act out at once in the approver's name and answers the request " +
            "`executed` with the act's answer in `result` (or the act's error, the request " +
            "then `failed`). "
          : "") +
        "Only a signed-in operator person with role `compliance` or `operator-admin` (session " +
        "cookie and `X-CSRF-Token`), never the one who asked; the admin token gets 403.",
      errors: {
        403: ["The operator person who requested an act cannot approve or reject it"],
        404: ["Operator request not found"],
        409: ["Operator request is executed"],
      },
    },
    auth: "person",
    roles: ["operator-admin", "compliance"],
    scopes: [],
    request: { params },
    responses: {
      200: operatorRequestSchema,
      400: errorBody,
      401: errorBody,
      403: errorBody,
      404: errorBody,
      409: errorBody,
      500: sentErrorBody,
      503: sentErrorBody,
    },
    handler: async ({ ctx, params, operator, origin }) =>
      decideOperatorRequest(ctx, params.requestId, decision, operator!, origin),
  });
}

/** `POST /api/enterprise/operator-requests/:requestId/approve`. */
export const approveOperatorRequestRoute = decisionRoute("approve");

/** `POST /api/enterprise/operator-requests/:requestId/reject`. */
export const rejectOperatorRequestRoute = decisionRoute("reject");

/** The operator request routes. */
export const OPERATOR_REQUEST_ROUTES: readonly AnyRouteDefinition[] = [
  listOperatorRequestsRoute,
  getOperatorRequestRoute,
  approveOperatorRequestRoute,
  rejectOperatorRequestRoute,
];
