import { notFoundErrors } from "../openapi/operation-metadata.js";
import { z } from "zod";
import { NotFoundError } from "../../errors.js";
import {
  approveRoute,
  heldStatus,
  heldTransactionStatus,
  listApprovalsRoute,
  rejectRoute,
} from "./approvals.js";
import { transactionStatus } from "../../domain/transaction.js";
import { readTransactionStatus } from "../../writes/transaction-status.js";
import { statusOf } from "../error-handler.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

/** `GET /api/v1/transactions/:id`: a write of the caller's org (any scope). */
export const transactionStatusRoute = defineRoute({
  method: "get",
  path: "/api/v1/transactions/:id",
  summary: "State of a write (async mode, or after a timeout)",
  docs: {
    operationId: "getTransaction",
    tag: "Transactions",
    description:
      "Only the calling organization's writes; any scope. A write the policy holds for approval " +
      "shows `pending_approval` and who has approved, until it is recorded.",
    errors: notFoundErrors("Transaction"),
  },
  auth: "apiKey",
  scopes: [],
  request: { params: z.object({ id: z.string().max(64) }) },
  responses: {
    200: z.union([transactionStatus, heldTransactionStatus]),
    ...apiKeyErrors,
    404: errorBody,
  },
  handler: async ({ ctx, principal, params }) => {
    const read = await readTransactionStatus(ctx, principal!.orgId, params.id).catch(
      (error: unknown) => {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      },
    );
    // Not recorded (yet): a write held for approval, or nothing.
    if (read === undefined) return heldStatus(ctx, principal!.orgId, params.id);
    const { status, failure } = read;
    // The status the synchronous call answered with, from the one class → status table.
    return { ...status, errorStatus: failure === undefined ? null : statusOf(failure) };
  },
});

/** Transaction routes, for `mountRoutes` and the OpenAPI generator. */
export const TRANSACTION_ROUTES = [
  transactionStatusRoute,
  listApprovalsRoute,
  approveRoute,
  rejectRoute,
] as const;
