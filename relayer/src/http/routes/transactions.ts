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
import { TRANSACTION_STATES, transactionStatus } from "../../domain/transaction.js";
import { WRITE_SCOPES } from "../../domain/scope.js";
import { expandScopes } from "../../auth/scopes.js";
import { cancelWrite } from "../../writes/cancel-write.js";
import { speedUpWrite } from "../../writes/speed-up-write.js";
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

/** `POST /api/v1/transactions/:id/cancel`: cancels a write not sent yet (a write scope). */
export const cancelTransactionRoute = defineRoute({
  method: "post",
  path: "/api/v1/transactions/:id/cancel",
  summary: "Cancel a write: at once before it is sent, by a replacement on its nonce after",
  docs: {
    operationId: "cancelTransaction",
    tag: "Transactions",
    description:
      "Needs a scope of the write it cancels (`write:issue` for an issuance, ...). A write not " +
      "sent yet (`queued`; a batch none of whose items was sent) ends `cancelled` at once: " +
      "nothing reaches the chain, its reserved funds are free, and `transaction.cancelled` is " +
      "sent. The answer is the write's status, as `GET /api/v1/transactions/{id}` shows it; " +
      "cancelling it again answers the same.\n\nA single write already `sent` is raced by a " +
      "zero-value self-transfer on its nonce, priced at least the pool's replacement bump over " +
      "it and for the next block, within `MAX_FEE_PER_GAS_GWEI`: 202 `cancelling`. It ends " +
      "`cancelled` if the self-transfer is mined, or in its normal final state if the original " +
      "is: the chain decides, `GET` and the webhooks follow. On a chain without fees, or when " +
      "the ceiling leaves no room to outbid it, 409 with the reason.\n\nA batch already " +
      "partly sent: each item not yet mined is cancelled (unsent ones at once, sent ones " +
      "raced as above) and the 202 lists every item with `cancel` (`cancelled`, `cancelling`, " +
      "`too-late`); the batch ends `cancelled` if every item was, else with its items' " +
      "results. Nothing left to cancel: 409.\n\nA write mined or " +
      "final (another state than `cancelled`) answers 409 with its `status`. Only the calling " +
      "organization's writes (another's: 404).",
    errors: {
      403: ["Insufficient scope"],
      404: ["Transaction not found"],
      409: [
        "Transaction already confirmed",
        "Transaction already sent: on a chain without fees no replacement can outbid it, so it cannot be cancelled",
      ],
    },
  },
  auth: "apiKey",
  scopes: [...WRITE_SCOPES, "admin:types"],
  request: { params: z.object({ id: z.string().max(64) }) },
  responses: {
    200: transactionStatus,
    202: z.object({
      transactionId: z.string(),
      status: z.literal("cancelling").describe("the replacement is out; the chain decides"),
      items: z
        .array(
          z.object({
            index: z.number().int().describe("the item's place in the request's `assets`"),
            status: z.enum(TRANSACTION_STATES).describe("the item's state after the cancel"),
            cancel: z
              .enum(["cancelled", "cancelling", "too-late"])
              .describe(
                "cancelled: not sent, ended at once; cancelling: sent, raced by a self-transfer " +
                  "on its nonce (the chain decides); too-late: already mined or final",
              ),
          }),
        )
        .optional()
        .describe("a batch only: what became of each item, in item order"),
    }),
    ...apiKeyErrors,
    404: errorBody,
    409: errorBody.extend({
      status: z.enum(TRANSACTION_STATES).optional().describe("the write's state"),
    }),
  },
  handler: async ({ ctx, principal, params, res }) => {
    const granted = principal!.grantedScopes;
    const outcome = await cancelWrite(ctx, principal!.orgId, params.id, (scopes) =>
      [...expandScopes(scopes)].some((scope) => granted.has(scope)),
    );
    if (outcome.status === "cancelling") {
      res.status(202).setHeader("Location", `/api/v1/transactions/${outcome.transactionId}`);
      res.json({
        transactionId: outcome.transactionId,
        status: "cancelling",
        ...(outcome.items === undefined ? {} : { items: outcome.items }),
      });
      return undefined;
    }
    const { status, failure } = outcome.read;
    return { ...status, errorStatus: failure === undefined ? null : statusOf(failure) };
  },
});

/** `POST /api/v1/transactions/:id/speed-up`: raises a sent write's fee cap (a write scope). */
export const speedUpTransactionRoute = defineRoute({
  method: "post",
  path: "/api/v1/transactions/:id/speed-up",
  summary: "Raise a sent write's fee cap and re-send it at once",
  docs: {
    operationId: "speedUpTransaction",
    tag: "Transactions",
    description:
      "Needs a scope of the write. Raises a single `sent` write's fee cap to " +
      "`maxFeePerGasGwei` (default: the current quote's cap again, twice the quote), reserving " +
      "the difference for its gas limit in the funds check, and re-sends it at once under the " +
      "new cap (a replacement on its nonce). Above `MAX_FEE_PER_GAS_GWEI`, malformed, or not " +
      "above its current cap: 400 with the field named. A write not sent yet, mined, final, " +
      "being cancelled, or a batch: 409 with its `status`.",
    errors: {
      400: [
        "Invalid field: maxFeePerGasGwei (above MAX_FEE_PER_GAS_GWEI, 100.0)",
        "Insufficient funds: need 1.5 COIN, wallet has 0.2 COIN (short 1.3)",
      ],
      404: ["Transaction not found"],
      409: ["Transaction not sent yet: nothing to speed up"],
    },
  },
  auth: "apiKey",
  scopes: [...WRITE_SCOPES, "admin:types"],
  request: {
    params: z.object({ id: z.string().max(64) }),
    body: z.strictObject({
      maxFeePerGasGwei: z
        .string()
        .max(40)
        .optional()
        .describe("the new fee cap in gwei (decimal); default: the current quote's cap"),
    }),
  },
  responses: {
    202: z.object({
      transactionId: z.string(),
      status: z.literal("sent"),
      maxFeePerGasGwei: z.string().describe("the new fee cap, in gwei"),
      maxFeePerGas: z.string().describe("the new fee cap, in wei per gas"),
    }),
    ...apiKeyErrors,
    404: errorBody,
    409: errorBody.extend({
      status: z.enum(TRANSACTION_STATES).optional().describe("the write's state"),
    }),
  },
  handler: async ({ ctx, principal, params, body }) => {
    const granted = principal!.grantedScopes;
    return speedUpWrite(ctx, principal!.orgId, params.id, body.maxFeePerGasGwei, (scopes) =>
      [...expandScopes(scopes)].some((scope) => granted.has(scope)),
    );
  },
});

/** Transaction routes, for `mountRoutes` and the OpenAPI generator. */
export const TRANSACTION_ROUTES = [
  transactionStatusRoute,
  listApprovalsRoute,
  approveRoute,
  rejectRoute,
  cancelTransactionRoute,
  speedUpTransactionRoute,
] as const;
