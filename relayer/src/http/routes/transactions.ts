import { z } from "zod";
import { TX_STATES } from "../../chain/tx-lifecycle.js";
import { transactionStatus } from "../../writes/transaction-status.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

/** Body of `GET /api/v1/transactions/{id}`. */
export const transactionStatusResponse = z.object({
  transactionId: z.string(),
  kind: z.string(),
  status: z.enum(TX_STATES),
  nonce: z.number().int().nullable(),
  hashes: z.array(z.string()).describe("every broadcast hash (re-pricing adds one)"),
  receipt: z
    .object({
      hash: z.string(),
      blockNumber: z.number().int(),
      blockHash: z.string(),
      status: z.number().int(),
      gasUsed: z.string(),
      effectiveGasPrice: z.string(),
    })
    .nullable(),
  result: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("the write's response body once final"),
  error: z.string().nullable(),
  lastError: z
    .string()
    .nullable()
    .describe("transient problem while still live (e.g. RPC unavailable)"),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
  confirmedAt: z.string().nullable(),
  failedAt: z.string().nullable(),
});

/** `GET /api/v1/transactions/:id`: a write of the caller's org (any scope). */
export const transactionStatusRoute = defineRoute({
  method: "get",
  path: "/api/v1/transactions/:id",
  summary: "State of a write (async mode, or after a timeout)",
  auth: "apiKey",
  scopes: [],
  request: { params: z.object({ id: z.string().max(64) }) },
  responses: { 200: transactionStatusResponse, ...apiKeyErrors, 404: errorBody },
  handler: ({ ctx, principal, params }) => transactionStatus(ctx, principal!.orgId, params.id),
});

/** Transaction routes, for `mountRoutes` and the OpenAPI generator. */
export const TRANSACTION_ROUTES = [transactionStatusRoute] as const;
