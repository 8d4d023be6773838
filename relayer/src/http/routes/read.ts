import { notFoundErrors } from "../openapi/operation-metadata.js";
import { z } from "zod";
import { assetRecord, assetTypeRecord } from "../../domain/asset.js";
import { LISTING_STATES, listingRecord } from "../../domain/listing.js";
import { listAssetTypes } from "../../reads/asset-types-read.js";
import { getAsset, listAssets } from "../../reads/assets-read.js";
import { getListing, listListings } from "../../reads/listings-read.js";
import { getNftMetadata } from "../../reads/nft-metadata-read.js";
import { readStatus } from "../../reads/status-read.js";
import { ValidationError } from "../../errors.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { addressSchema, errorBody, timestampSchema } from "./schemas.js";

/** A positive integer id in the path (token or listing id). */
export const positiveIdSchema = z.string().regex(/^[1-9]\d{0,77}$/, "must be a positive integer");

/** Path params of `/assets/{id}`, `/nft/{id}`, `/marketplace/{id}`. */
export const idParams = z.object({ id: positiveIdSchema });

const limitSchema = z
  .string()
  .regex(/^\d{1,3}$/, "must be an integer from 1 to 100")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, "must be an integer from 1 to 100")
  .optional();

const cursorSchema = z.string().max(200, "too long").optional();

/** `GET /api/v1/assets` query. */
export const listAssetsQuery = z.strictObject({
  limit: limitSchema,
  cursor: cursorSchema,
  owner: addressSchema.optional(),
  assetType: z.string().min(1, "must not be empty").max(64, "too long").optional(),
});

const listingStateFilter = z
  .enum(LISTING_STATES, { error: `must be one of ${LISTING_STATES.join(", ")}` })
  .optional();

/**
 * `GET /api/v1/marketplace` query. The filter is named after the record's field, `state`;
 * `status`, its first name, is accepted as an alias (docs/read-api.md).
 */
export const listListingsQuery = z.strictObject({
  limit: limitSchema,
  cursor: cursorSchema,
  state: listingStateFilter.describe("Listings in this state"),
  status: listingStateFilter.describe("Alias of `state`"),
  seller: addressSchema.optional(),
  tokenId: positiveIdSchema.optional(),
});

const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** `GET /api/v1/status` response. */
export const statusResponse = z.object({
  status: z.enum(["ok", "degraded"]),
  chainId: z.number().int(),
  latestBlock: z.number().int().nullable(),
  indexedBlock: z.number().int().nullable(),
  lag: z.number().int().nullable(),
  averageBlockTime: z.number().nullable(),
  contracts: z.object({
    assetTypeRegistry: z.string(),
    assetToken: z.string(),
    marketplace: z.string(),
    deployBlock: z.number().int(),
  }),
  rpc: z.object({ ok: z.boolean(), latencyMs: z.number().nullable() }),
  feeModel: z
    .object({
      type: z.union([z.literal(0), z.literal(2)]),
      source: z.enum(["eth_feeHistory", "eth_maxPriorityFeePerGas", "eth_gasPrice", "free"]),
      description: z.string(),
      detectedAt: timestampSchema,
    })
    .nullable()
    .describe(
      "How the relayer prices transactions on this node: type 2 (EIP-1559) where blocks carry a base fee, legacy type 0 where they do not, zero on a free-gas network; null while the node cannot be asked",
    ),
  database: z.object({ ok: z.boolean(), latencyMs: z.number().nullable() }),
  queue: z.object({
    ok: z.boolean(),
    pendingDeliveries: z.number().nullable(),
    overdueDeliveries: z.number().nullable(),
  }),
  market: z
    .object({
      paused: z.boolean(),
      reason: z.string().nullable(),
      changedAt: timestampSchema.nullable(),
    })
    .nullable()
    .describe(
      'Whether the operator paused transfers and the market (docs/contracts.md "Compliance controls"), as indexed: the reason and time of the last pause or resume, or null for both while never paused; null while the database cannot be read',
    ),
});

/** `GET /api/v1/coin-price` response. */
export const coinPriceResponse = z.object({
  symbol: z.string(),
  priceUsd: z.string().nullable(),
  source: z.string(),
  updatedAt: timestampSchema,
});

/** ERC-721 metadata document. */
export const nftMetadataResponse = z.looseObject({
  name: z.string(),
  description: z.string(),
  image: z.string(),
  external_url: z.string(),
  attributes: z.array(z.unknown()),
});

/** `GET /api/v1/asset-types` response. */
export const assetTypesResponse = z.object({ data: z.array(assetTypeRecord) });

const readErrors = { 400: errorBody, 404: errorBody } as const;

/** `GET /api/v1/status`. */
export const statusRoute = defineRoute({
  method: "get",
  path: "/api/v1/status",
  summary: "Chain, indexer, database and queue status",
  docs: {
    operationId: "getStatus",
    tag: "System",
    description:
      "`status` is `degraded` when the RPC node, the database or the queue is not ok. `feeModel` says how transactions are priced on the node (detected from it).",
  },
  auth: "none",
  scopes: [],
  request: {},
  responses: { 200: statusResponse },
  handler: async ({ ctx }) => readStatus(ctx),
});

/** `GET /api/v1/coin-price`. */
export const coinPriceRoute = defineRoute({
  method: "get",
  path: "/api/v1/coin-price",
  summary: "Native coin price in USD",
  docs: { operationId: "getCoinPrice", tag: "System" },
  auth: "none",
  scopes: [],
  request: {},
  responses: { 200: coinPriceResponse },
  handler: async ({ ctx }) => ctx.coinPrice.current(),
});

/** `GET /api/v1/assets`. */
export const listAssetsRoute = defineRoute({
  method: "get",
  path: "/api/v1/assets",
  summary: "List assets (newest first, cursor pagination)",
  docs: {
    operationId: "getAssets",
    tag: "Assets",
    description:
      "Pass `nextCursor` back as `cursor` for the next page; `null` means the last page.",
    errors: { 400: ["Invalid field: limit (must be an integer from 1 to 100)", "Invalid cursor"] },
  },
  auth: "none",
  scopes: [],
  request: { query: listAssetsQuery },
  responses: { 200: page(assetRecord), 400: errorBody },
  handler: async ({ ctx, query }) =>
    listAssets(ctx.database, { ...query, limit: query.limit ?? 20 }),
});

/** `GET /api/v1/assets/:id`. */
export const getAssetRoute = defineRoute({
  method: "get",
  path: "/api/v1/assets/:id",
  summary: "One asset",
  docs: { operationId: "getAsset", tag: "Assets", errors: notFoundErrors("Asset") },
  auth: "none",
  scopes: [],
  request: { params: idParams },
  responses: { 200: assetRecord, ...readErrors },
  handler: async ({ ctx, params }) => getAsset(ctx.database, params.id),
});

/** `GET /api/v1/nft/:id`: the ERC-721 metadata document. */
export const nftMetadataRoute = defineRoute({
  method: "get",
  path: "/api/v1/nft/:id",
  summary: "ERC-721 metadata JSON of a token",
  docs: { operationId: "getNft", tag: "Assets", errors: notFoundErrors("Asset") },
  auth: "none",
  scopes: [],
  request: { params: idParams },
  responses: { 200: nftMetadataResponse, ...readErrors },
  handler: async ({ ctx, params }) => getNftMetadata(ctx.database, params.id),
});

/** `GET /api/v1/marketplace`. */
export const listListingsRoute = defineRoute({
  method: "get",
  path: "/api/v1/marketplace",
  summary: "List marketplace listings (newest first, cursor pagination)",
  docs: {
    operationId: "getListings",
    tag: "Marketplace",
    errors: { 400: ["Invalid field: status (must be one of active, sold, cancelled, expired)"] },
  },
  auth: "none",
  scopes: [],
  request: { query: listListingsQuery },
  responses: { 200: page(listingRecord), 400: errorBody },
  handler: async ({ ctx, query }) => {
    const { state, status, ...filters } = query;
    if (state !== undefined && status !== undefined && state !== status) {
      throw new ValidationError("Invalid field: state (state and its alias status disagree)");
    }
    return listListings(ctx.database, {
      ...filters,
      state: state ?? status,
      limit: query.limit ?? 20,
    });
  },
});

/** `GET /api/v1/marketplace/:id`. */
export const getListingRoute = defineRoute({
  method: "get",
  path: "/api/v1/marketplace/:id",
  summary: "One listing",
  docs: {
    operationId: "getListing",
    tag: "Marketplace",
    errors: notFoundErrors("Listing"),
  },
  auth: "none",
  scopes: [],
  request: { params: idParams },
  responses: { 200: listingRecord, ...readErrors },
  handler: async ({ ctx, params }) => getListing(ctx.database, params.id),
});

/** `GET /api/v1/asset-types`. */
export const assetTypesRoute = defineRoute({
  method: "get",
  path: "/api/v1/asset-types",
  summary: "Registered asset types",
  docs: { operationId: "getAssetTypes", tag: "Assets" },
  auth: "none",
  scopes: [],
  request: {},
  responses: { 200: assetTypesResponse },
  handler: async ({ ctx }) => ({ data: await listAssetTypes(ctx.database) }),
});

/** The public read API (docs/read-api.md), served from the indexed database. */
export const READ_ROUTES: readonly AnyRouteDefinition[] = [
  statusRoute,
  coinPriceRoute,
  listAssetsRoute,
  getAssetRoute,
  nftMetadataRoute,
  listListingsRoute,
  getListingRoute,
  assetTypesRoute,
];
