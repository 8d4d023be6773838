import type { Request, Response } from "express";
import { z } from "zod";
import type { AppContext } from "../../context.js";
import { ValidationError } from "../../errors.js";
import { checkIdempotencyKey } from "../../writes/idempotency.js";
import { prepareBatchIssue, prepareIssueAsset } from "../../writes/issue-asset.js";
import { WRITE_LIMITS } from "../../writes/limits.js";
import {
  prepareBuy,
  prepareDelist,
  prepareList,
  prepareRegisterType,
  prepareTransfer,
} from "../../writes/transfer-asset.js";
import { executeWrite, type WriteKind, type WriteRequest } from "../../writes/write-executor.js";
import { writeResponse } from "../../writes/write-responses.js";
import { defineRoute } from "../route-definition.js";
import { TRANSACTION_ROUTES } from "./transactions.js";
import { addressSchema, apiKeyErrors, errorBody } from "./schemas.js";

const L = WRITE_LIMITS;
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const amount = z.union([z.string(), z.number()]).describe('native-coin decimal amount, e.g. "0.1"');
const idValue = z
  .union([z.string(), z.number().int().nonnegative()])
  .describe("decimal id (string or number)");

/** One asset: the body of issue-asset and each item of batch-issue. */
export const issueAssetRequest = z.strictObject({
  assetType: text(L.assetTypeMax)
    .min(1, "must not be empty")
    .describe("registered asset type, case-sensitive"),
  name: text(L.nameMax).min(1, "must not be empty"),
  description: text(L.descriptionMax),
  image: text(L.urlMax).optional().describe("HTTPS or IPFS URL"),
  externalUrl: text(L.urlMax).optional(),
  ipfsHash: text(L.ipfsHashMax)
    .optional()
    .describe("IPFS CID (v0 or v1, 32-byte digest); default: the CID of the generated metadata"),
  stakedAmount: amount.optional().describe('default "0.1", minimum "0.1"'),
  password: text(L.passwordMax).optional().describe("stored on chain as keccak256 only"),
});

/** Success body of issue-asset. */
export const issueAssetResponse = z.object({
  success: z.literal(true),
  tokenId: z.string(),
  txHash: z.string(),
  wallet: addressSchema,
  owner: addressSchema,
  assetType: z.string(),
  stakedAmount: z.string(),
  ipfsHash: z.string(),
});

/** 202 body of any write with `Prefer: respond-async` (or a sync wait that timed out). */
export const acceptedResponse = z.object({ transactionId: z.string(), status: z.string() });

/** Body of batch-issue: 1 to 50 assets. */
export const batchIssueRequest = z.preprocess(
  (input) => {
    const assets = (input as { assets?: unknown } | null)?.assets;
    if (
      typeof input === "object" &&
      input !== null &&
      (!Array.isArray(assets) || assets.length === 0)
    ) {
      throw new ValidationError("assets must be a non-empty array");
    }
    if (Array.isArray(assets) && assets.length > L.batchMax) {
      throw new ValidationError(
        `assets must contain at most ${L.batchMax} items (got ${assets.length})`,
      );
    }
    return input;
  },
  z.strictObject({ assets: z.array(issueAssetRequest).min(1).max(L.batchMax) }),
);

/** Success body of batch-issue (per-item results; a failed item has `error`). */
export const batchIssueResponse = z.object({
  success: z.boolean().describe("true when every item was issued"),
  issued: z.number().int(),
  failed: z.number().int(),
  results: z.array(
    z.object({
      index: z.number().int(),
      success: z.boolean(),
      tokenId: z.string().nullable(),
      txHash: z.string().nullable(),
      error: z.string().optional(),
    }),
  ),
  wallet: addressSchema,
  owner: addressSchema,
});

/** Body of transfer. */
export const transferRequest = z.strictObject({
  tokenId: idValue,
  toAddress: z.string().describe("0x address"),
});
/** Success body of transfer. */
export const transferResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  from: addressSchema,
  to: addressSchema,
  tokenId: z.string(),
});

/** Body of marketplace/list. */
export const listRequest = z.strictObject({
  tokenId: idValue,
  priceInCOIN: amount,
  durationDays: z
    .number()
    .int("must be an integer")
    .min(L.durationDaysMin, `must be ${L.durationDaysMin} to ${L.durationDaysMax}`)
    .max(L.durationDaysMax, `must be ${L.durationDaysMin} to ${L.durationDaysMax}`)
    .optional()
    .describe("default 30"),
});
/** Success body of marketplace/list. */
export const listResponse = z.object({
  success: z.literal(true),
  listingId: z.string(),
  txHash: z.string(),
  tokenId: z.string(),
  priceInCOIN: z.string(),
  durationDays: z.number().int(),
  expiresAt: z.string().nullable(),
});

/** Body of marketplace/buy. */
export const buyRequest = z.strictObject({ listingId: idValue, maxPriceInCOIN: amount.optional() });
/** Success body of marketplace/buy. */
export const buyResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  listingId: z.string(),
  tokenId: z.string(),
  pricePaid: z.string(),
  buyer: addressSchema,
  seller: addressSchema.nullable(),
});

/** Body of marketplace/delist. */
export const delistRequest = z.strictObject({ listingId: idValue });
/** Success body of marketplace/delist. */
export const delistResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  listingId: z.string(),
  tokenId: z.string(),
});

/** Body of register-asset-type. */
export const registerTypeRequest = z.strictObject({
  typeName: text(L.assetTypeMax).min(1, "must not be empty"),
});
/** Success body of register-asset-type. */
export const registerTypeResponse = z.object({
  success: z.literal(true),
  typeName: z.string(),
  txHash: z.string(),
});

const writeErrors = {
  ...apiKeyErrors,
  202: acceptedResponse,
  409: errorBody,
  500: errorBody,
  503: errorBody,
} as const;

/** Runs a write for a route and sends 200 (final), 202 (async) or throws. */
async function runWrite(
  ctx: AppContext,
  req: Request,
  res: Response,
  orgId: string,
  kind: WriteKind,
  body: unknown,
  prepare: WriteRequest["prepare"],
): Promise<Record<string, unknown> | undefined> {
  const prefer = (req.get("prefer") ?? "").toLowerCase();
  const outcome = await executeWrite(ctx, {
    kind,
    orgId,
    body,
    idempotencyKey: checkIdempotencyKey(req.get("idempotency-key")),
    respondAsync: /(^|[,\s])respond-async($|[,;\s])/.test(prefer),
    prepare,
  });
  if (outcome.status === "accepted") {
    res.status(202).setHeader("Location", `/api/v1/transactions/${outcome.transactionId}`);
    res.json({ transactionId: outcome.transactionId, status: outcome.state });
    return undefined;
  }
  return writeResponse(outcome.row, outcome.children);
}

const common = { auth: "apiKey" as const, method: "post" as const };

/** `POST /api/v1/write/issue-asset` (write:issue). */
export const issueAssetRoute = defineRoute({
  ...common,
  path: "/api/v1/write/issue-asset",
  summary: "Issue one asset (mint + stake)",
  scopes: ["write:issue"],
  request: { body: issueAssetRequest },
  responses: { 200: issueAssetResponse, ...writeErrors },
  handler: ({ ctx, req, res, principal, body }) =>
    runWrite(ctx, req, res, principal!.orgId, "issue-asset", body, (wallet) =>
      prepareIssueAsset(ctx, wallet, body),
    ),
});

/** `POST /api/v1/write/batch-issue` (write:issue). */
export const batchIssueRoute = defineRoute({
  ...common,
  path: "/api/v1/write/batch-issue",
  summary: "Issue 1 to 50 assets (one transaction each, partial failure possible)",
  scopes: ["write:issue"],
  request: { body: batchIssueRequest },
  responses: { 200: batchIssueResponse, ...writeErrors },
  handler: ({ ctx, req, res, principal, body }) =>
    runWrite(ctx, req, res, principal!.orgId, "batch-issue", body, (wallet) =>
      prepareBatchIssue(ctx, wallet, body.assets),
    ),
});

/** `POST /api/v1/write/transfer` (write:transfer). */
export const transferRoute = defineRoute({
  ...common,
  path: "/api/v1/write/transfer",
  summary: "Transfer an asset from the custodial wallet",
  scopes: ["write:transfer"],
  request: { body: transferRequest },
  responses: { 200: transferResponse, ...writeErrors },
  handler: ({ ctx, req, res, principal, body }) =>
    runWrite(ctx, req, res, principal!.orgId, "transfer", body, (wallet) =>
      prepareTransfer(ctx, wallet, body),
    ),
});

/** `POST /api/v1/write/marketplace/list` (write:marketplace). */
export const listRoute = defineRoute({
  ...common,
  path: "/api/v1/write/marketplace/list",
  summary: "List an asset on the marketplace (escrow, one transaction)",
  scopes: ["write:marketplace"],
  request: { body: listRequest },
  responses: { 200: listResponse, ...writeErrors },
  handler: ({ ctx, req, res, principal, body }) =>
    runWrite(ctx, req, res, principal!.orgId, "list", body, (wallet) =>
      prepareList(ctx, wallet, body),
    ),
});

/** `POST /api/v1/write/marketplace/buy` (write:marketplace). */
export const buyRoute = defineRoute({
  ...common,
  path: "/api/v1/write/marketplace/buy",
  summary: "Buy an active listing (maxPriceInCOIN guards against price changes)",
  scopes: ["write:marketplace"],
  request: { body: buyRequest },
  responses: { 200: buyResponse, ...writeErrors },
  handler: ({ ctx, req, res, principal, body }) =>
    runWrite(ctx, req, res, principal!.orgId, "buy", body, (wallet) =>
      prepareBuy(ctx, wallet, body),
    ),
});

/** `POST /api/v1/write/marketplace/delist` (write:marketplace). */
export const delistRoute = defineRoute({
  ...common,
  path: "/api/v1/write/marketplace/delist",
  summary: "Cancel a listing (seller only); the asset returns to the wallet",
  scopes: ["write:marketplace"],
  request: { body: delistRequest },
  responses: { 200: delistResponse, ...writeErrors },
  handler: ({ ctx, req, res, principal, body }) =>
    runWrite(ctx, req, res, principal!.orgId, "delist", body, (wallet) =>
      prepareDelist(ctx, wallet, body),
    ),
});

/** `POST /api/v1/write/register-asset-type` (admin:types). */
export const registerTypeRoute = defineRoute({
  ...common,
  path: "/api/v1/write/register-asset-type",
  summary: "Register a new asset type (the org's wallet holds REGISTRAR_ROLE)",
  scopes: ["admin:types"],
  request: { body: registerTypeRequest },
  responses: { 200: registerTypeResponse, ...writeErrors },
  handler: ({ ctx, req, res, principal, body }) =>
    runWrite(ctx, req, res, principal!.orgId, "register-asset-type", body, (wallet) =>
      prepareRegisterType(ctx, wallet, body),
    ),
});

/** The write routes (spec 4.2), for `mountRoutes` and the OpenAPI generator. */
export const WRITE_ROUTES = [
  issueAssetRoute,
  batchIssueRoute,
  transferRoute,
  listRoute,
  buyRoute,
  delistRoute,
  registerTypeRoute,
] as const;

/** Everything this module group serves: the writes and `GET /api/v1/transactions/{id}` (mounted by app.ts). */
export const WRITE_API_ROUTES = [...WRITE_ROUTES, ...TRANSACTION_ROUTES] as const;
