import { z } from "zod";
import {
  forceTransferAsset,
  listAllowlist,
  MAX_REASON_LENGTH,
  setAllowlisted,
  setAssetFrozen,
  setAssetTypeRestricted,
  setMarketPaused,
} from "../../operator/compliance.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { answerOperatorRequest, fourEyesOn, operatorRequestSchema } from "./operator-requests.js";
import { addressSchema, errorBody, sentErrorBody, timestampSchema } from "./schemas.js";

/**
 * Operator compliance controls (docs/contracts.md "Compliance controls"): freeze, forced transfer, market
 * pause, restricted asset types and their allowlist. `auth: "admin"`: `X-Admin-Token` or an
 * operator console session; an organization's API key gets 403 `Admin token required`. Each
 * write answers once the operator account's transaction is mined, with its hash (`txHash`),
 * and sends nothing when the state already is what was asked (`txHash` is then the hash of the
 * transaction that made it, or null while the indexer has not read it). Each act is audited by
 * its service (`operator/compliance.ts`; docs/audit-log.md "Acts on chain"); a failure once the
 * transaction is sent answers with its `txHash` too.
 *
 * Freeze, unfreeze and forced transfer wait for a second operator person (docs/people.md
 * "Operator four-eyes"): they answer 202 with the operator request, carried out when approved;
 * with OPERATOR_FOUR_EYES=off (development only) they are carried out at once.
 */

const reasonField = z
  .string()
  .max(MAX_REASON_LENGTH, `must be at most ${MAX_REASON_LENGTH} characters`)
  .describe("why, in the operator's words: written on chain, sent in webhooks and audited");

/** `{ reason }`: the body of freeze, unfreeze, pause and resume. */
export const reasonRequest = z.strictObject({ reason: reasonField });

const tokenIdParams = z.object({
  tokenId: z.string().describe("decimal token id"),
});

const stateTxHash = z
  .string()
  .nullable()
  .describe("the transaction that made this state (null while not indexed yet)");

/** Response of freeze and unfreeze. */
export const freezeResponse = z.object({
  success: z.literal(true),
  tokenId: z.string(),
  frozen: z.boolean(),
  reason: z.string(),
  txHash: stateTxHash,
});

/** Response of pause and resume. */
export const pauseResponse = z.object({
  success: z.literal(true),
  paused: z.boolean(),
  reason: z.string(),
  txHash: stateTxHash,
});

/** Body of a forced transfer. */
export const forcedTransferRequest = z.strictObject({
  toAddress: z.string().describe("0x address that receives the asset"),
  reason: reasonField,
});

/** Response of a forced transfer. */
export const forcedTransferResponse = z.object({
  success: z.literal(true),
  tokenId: z.string(),
  from: addressSchema,
  to: addressSchema,
  reason: z.string(),
  txHash: z.string(),
  cancelledListingId: z
    .string()
    .nullable()
    .describe("the listing that ended cancelled because the asset was in escrow"),
});

/** Body of `PATCH /api/enterprise/asset-types/{name}`. */
export const assetTypePatchRequest = z.strictObject({
  restricted: z.boolean().describe("only allowlisted addresses may hold tokens of this type"),
});

/** Response of `PATCH /api/enterprise/asset-types/{name}`. */
export const assetTypePatchResponse = z.object({
  success: z.literal(true),
  name: z.string(),
  restricted: z.boolean(),
  txHash: stateTxHash,
});

/** Body of allowlist additions and removals. */
export const allowlistRequest = z.strictObject({
  address: z.string().describe("0x address"),
});

/** Response of allowlist additions and removals. */
export const allowlistChangeResponse = z.object({
  success: z.literal(true),
  address: addressSchema,
  allowed: z.boolean(),
  txHash: stateTxHash,
});

/** Response of `GET /api/enterprise/allowlist`. */
export const allowlistResponse = z.object({
  addresses: z.array(
    z.object({ address: addressSchema, txHash: z.string(), addedAt: timestampSchema }),
  ),
});

const writeResponses = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  500: sentErrorBody,
  503: sentErrorBody,
} as const;

/** What the reference says of the acts that wait for a second operator person. */
const FOUR_EYES_NOTE =
  " Four-eyes (on unless OPERATOR_FOUR_EYES=off): the act is not carried out here; it answers " +
  "202 with an operator request (`Location`: `/api/enterprise/operator-requests/{requestId}`) " +
  "that a second operator person (role `compliance` or `operator-admin`, not the one who asked) " +
  "approves; the 200 answer below is then the request's `result`.";

const reasonErrors = [
  "Missing required field: reason",
  "Invalid field: reason (must be at most 500 characters)",
];

/** `POST /api/enterprise/assets/{tokenId}/freeze` (`frozen`) or `/unfreeze`. */
function assetFreezeRoute(frozen: boolean) {
  return defineRoute({
    method: "post",
    path: `/api/enterprise/assets/:tokenId/${frozen ? "freeze" : "unfreeze"}`,
    summary: `${frozen ? "Freeze" : "Unfreeze"} an asset (operator staff)`,
    docs: {
      operationId: frozen ? "freezeAsset" : "unfreezeAsset",
      tag: "Compliance",
      description:
        (frozen
          ? "The asset can no longer be transferred, listed, bought or redeemed; listed, it can " +
            "only go back to its seller. Sends `asset.frozen`. A second freeze sends nothing and " +
            "answers the same."
          : "Sends `asset.unfrozen`. Unfreezing an asset that is not frozen sends nothing.") +
        FOUR_EYES_NOTE,
      errors: { 400: reasonErrors, 404: ["Asset not found"] },
    },
    auth: "admin",
    scopes: [],
    request: { params: tokenIdParams, body: reasonRequest },
    responses: { 200: freezeResponse, 202: operatorRequestSchema, ...writeResponses },
    handler: async ({ ctx, res, params, body, origin, operator }) =>
      fourEyesOn(ctx)
        ? answerOperatorRequest(
            ctx,
            res,
            { kind: frozen ? "freeze" : "unfreeze", tokenId: params.tokenId, reason: body.reason },
            origin,
            operator,
          )
        : setAssetFrozen(ctx, { tokenId: params.tokenId, frozen, reason: body.reason }, origin),
  });
}

/** `POST /api/enterprise/assets/{tokenId}/freeze`. */
export const freezeRoute = assetFreezeRoute(true);

/** `POST /api/enterprise/assets/{tokenId}/unfreeze`. */
export const unfreezeRoute = assetFreezeRoute(false);

/** `POST /api/enterprise/assets/{tokenId}/forced-transfer`. */
export const forcedTransferRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/assets/:tokenId/forced-transfer",
  summary: "Move an asset by force (operator staff)",
  docs: {
    operationId: "forceTransferAsset",
    tag: "Compliance",
    description:
      "ERC-7943 `forcedTransfer`, for a court order or a lost key: works on a frozen asset and " +
      "while paused; a listed asset's listing ends cancelled first; the asset arrives unfrozen. " +
      "Sends `asset.forced_transfer` to both sides." +
      FOUR_EYES_NOTE,
    errors: {
      400: [
        "Invalid field: toAddress (the zero address cannot hold tokens)",
        "Invalid field: toAddress (must not be the marketplace)",
        "Recipient is not allowed to hold this asset type",
      ],
      404: ["Asset not found"],
    },
  },
  auth: "admin",
  scopes: [],
  request: { params: tokenIdParams, body: forcedTransferRequest },
  responses: { 200: forcedTransferResponse, 202: operatorRequestSchema, ...writeResponses },
  handler: async ({ ctx, res, params, body, origin, operator }) =>
    fourEyesOn(ctx)
      ? answerOperatorRequest(
          ctx,
          res,
          {
            kind: "forced-transfer",
            tokenId: params.tokenId,
            toAddress: body.toAddress,
            reason: body.reason,
          },
          origin,
          operator,
        )
      : forceTransferAsset(
          ctx,
          {
            tokenId: params.tokenId,
            toAddress: body.toAddress,
            reason: body.reason,
          },
          origin,
        ),
});

/** `POST /api/enterprise/marketplace/pause` (`paused`) or `/resume`. */
function marketPauseRoute(paused: boolean) {
  return defineRoute({
    method: "post",
    path: `/api/enterprise/marketplace/${paused ? "pause" : "resume"}`,
    summary: paused
      ? "Halt every transfer and the marketplace (operator staff)"
      : "Resume transfers and the marketplace (operator staff)",
    docs: {
      operationId: paused ? "pauseMarket" : "resumeMarket",
      tag: "Compliance",
      description: paused
        ? "While paused nothing is minted, transferred, listed, bought or redeemed; sellers can " +
          "still delist (and reclaim expired listings), and the operator can still freeze and " +
          "force transfers. Sends `market.paused` to every organization."
        : "Sends `market.resumed` to every organization.",
      errors: { 400: reasonErrors },
    },
    auth: "admin",
    scopes: [],
    request: { body: reasonRequest },
    responses: { 200: pauseResponse, ...writeResponses },
    handler: async ({ ctx, body, origin }) =>
      setMarketPaused(ctx, { paused, reason: body.reason }, origin),
  });
}

/** `POST /api/enterprise/marketplace/pause`. */
export const pauseRoute = marketPauseRoute(true);

/** `POST /api/enterprise/marketplace/resume`. */
export const resumeRoute = marketPauseRoute(false);

/** `PATCH /api/enterprise/asset-types/{name}`. */
export const assetTypePatchRoute = defineRoute({
  method: "patch",
  path: "/api/enterprise/asset-types/:name",
  summary: "Mark an asset type restricted or not (operator staff)",
  docs: {
    operationId: "setAssetTypeRestricted",
    tag: "Compliance",
    description:
      "Tokens of a restricted type can only be minted to, or moved to, allowlisted addresses " +
      "(every organization's wallet is allowlisted when it registers). Holders of existing " +
      "tokens keep them.",
    errors: { 404: ["Asset type not found"] },
  },
  auth: "admin",
  scopes: [],
  request: { params: z.object({ name: z.string() }), body: assetTypePatchRequest },
  responses: { 200: assetTypePatchResponse, ...writeResponses },
  handler: async ({ ctx, params, body, origin }) =>
    setAssetTypeRestricted(ctx, { name: params.name, restricted: body.restricted }, origin),
});

/** `GET /api/enterprise/allowlist`. */
export const allowlistRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/allowlist",
  summary: "List the addresses allowed to hold restricted asset types (operator staff)",
  docs: { operationId: "listAllowlist", tag: "Compliance" },
  auth: "admin",
  scopes: [],
  request: {},
  responses: { 200: allowlistResponse, 401: errorBody, 403: errorBody },
  handler: async ({ ctx }) => listAllowlist(ctx),
});

/** `POST /api/enterprise/allowlist`. */
export const allowlistAddRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/allowlist",
  summary: "Allow an address to hold restricted asset types (operator staff)",
  docs: {
    operationId: "addToAllowlist",
    tag: "Compliance",
    errors: { 400: ["Invalid field: address (not a 0x address)"] },
  },
  auth: "admin",
  scopes: [],
  request: { body: allowlistRequest },
  responses: { 200: allowlistChangeResponse, ...writeResponses },
  handler: async ({ ctx, body, origin }) =>
    setAllowlisted(ctx, { address: body.address, allowed: true }, origin),
});

/** `DELETE /api/enterprise/allowlist`. */
export const allowlistRemoveRoute = defineRoute({
  method: "delete",
  path: "/api/enterprise/allowlist",
  summary: "Remove an address from the allowlist of restricted asset types (operator staff)",
  docs: {
    operationId: "removeFromAllowlist",
    tag: "Compliance",
    description:
      "Tokens the address already holds stay with it; it can no longer receive restricted ones.",
    errors: { 400: ["Invalid field: address (not a 0x address)"] },
  },
  auth: "admin",
  scopes: [],
  request: { body: allowlistRequest },
  responses: { 200: allowlistChangeResponse, ...writeResponses },
  handler: async ({ ctx, body, origin }) =>
    setAllowlisted(ctx, { address: body.address, allowed: false }, origin),
});

/** The compliance routes, in the order the reference page lists them. */
export const COMPLIANCE_ROUTES: readonly AnyRouteDefinition[] = [
  freezeRoute,
  unfreezeRoute,
  forcedTransferRoute,
  pauseRoute,
  resumeRoute,
  assetTypePatchRoute,
  allowlistRoute,
  allowlistAddRoute,
  allowlistRemoveRoute,
];
