import { notFoundErrors } from "../openapi/operation-metadata.js";
import { z } from "zod";
import { TRANSACTION_STATES } from "../../domain/transaction.js";
import { assetHistory } from "../../reads/asset-history.js";
import { listAssets } from "../../reads/assets-read.js";
import { deliveriesPerHour, issuancesPerDay } from "../../reads/org-stats.js";
import { listOrgTransactions } from "../../reads/org-transactions.js";
import { walletHistory } from "../../reads/wallet-history.js";
import { walletAddressOf } from "../../reads/wallet-balance.js";
import { ValidationError } from "../../errors.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { assetRecord } from "../../domain/asset.js";
import { idParams } from "./read.js";
import { apiKeyErrors, errorBody, timestampSchema } from "./schemas.js";

/**
 * Read endpoints of one organization's own data, for the console's gallery, charts and
 * transactions screen (and any integration that wants the same). Every query is keyed by the
 * caller's org: another organization's rows are never counted or returned. One public read sits
 * here too, a token's on-chain history, which the console's detail view shows.
 */

/** An integer query parameter from `min` to `max`. */
const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,4}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be an integer from ${min} to ${max}`)
    .optional();

const cursorSchema = z.string().max(200, "too long").optional();

const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** `GET /api/enterprise/assets` query. */
export const orgAssetsQuery = z.strictObject({
  limit: intParam(1, 100),
  cursor: cursorSchema,
  assetType: z.string().min(1, "must not be empty").max(64, "too long").optional(),
});

/** `GET /api/v1/transactions` query. */
export const orgTransactionsQuery = z.strictObject({
  limit: intParam(1, 100),
  cursor: cursorSchema,
  status: z
    .enum(TRANSACTION_STATES, { error: `must be one of ${TRANSACTION_STATES.join(", ")}` })
    .optional(),
  kind: z
    .string()
    .regex(/^[a-z][a-z-]{0,39}$/, "must be a write kind such as issue-asset")
    .optional(),
});

/** One write in the transactions list. */
export const orgTransactionSchema = z.object({
  transactionId: z.string(),
  kind: z.string(),
  status: z.enum(TRANSACTION_STATES),
  nonce: z.number().int().nullable(),
  txHash: z.string().nullable().describe("the mined hash, else the latest broadcast one"),
  hashes: z.array(z.string()),
  blockNumber: z.number().int().nullable(),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  reason: z.string().nullable().describe("the failure (or a live problem) in words"),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  sentAt: timestampSchema.nullable(),
  confirmedAt: timestampSchema.nullable(),
  failedAt: timestampSchema.nullable(),
});

const balancePoint = z.object({
  at: timestampSchema,
  blockNumber: z
    .number()
    .int()
    .nullable()
    .describe("the block the balance was read at; null for the window's edges"),
  balance: z.string().describe("native coin decimal"),
  balanceWei: z.string().regex(/^-?\d+$/),
});

/** `GET /api/enterprise/wallet/history` response. */
export const walletHistoryResponse = z.object({
  walletAddress: z.string(),
  balance: z.string().describe("the current balance"),
  balanceWei: z.string(),
  since: timestampSchema,
  until: timestampSchema,
  points: z
    .array(balancePoint)
    .describe("oldest first; on the newest page of an open window the last is the current balance"),
  truncated: z.boolean(),
  nextCursor: z.string().nullable().describe("older points of the same window"),
});

/** An ISO 8601 time query parameter. */
const timeParam = z
  .string()
  .max(40, "too long")
  .regex(
    /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d))?$/,
    "must be an ISO 8601 date or time, e.g. 2026-11-25T12:00:00Z",
  )
  .refine((v) => !Number.isNaN(Date.parse(v)), "must be an ISO 8601 date or time")
  .optional();

/** `GET /api/enterprise/wallet/history` query. */
export const walletHistoryQuery = z.strictObject({
  days: intParam(1, 365),
  from: timeParam,
  to: timeParam,
  limit: intParam(1, 1000),
  cursor: cursorSchema,
});

/** `GET /api/enterprise/stats/issuances` response. */
export const issuancesResponse = z.object({
  data: z.array(z.object({ day: z.string().describe("YYYY-MM-DD (UTC)"), issued: z.number() })),
});

/** `GET /api/enterprise/stats/deliveries` response. */
export const deliveryStatsResponse = z.object({
  data: z.array(
    z.object({
      hour: timestampSchema,
      succeeded: z.number().int(),
      retried: z.number().int(),
      failed: z.number().int(),
    }),
  ),
});

/** `GET /api/enterprise/assets` (scope read): assets the org's wallet owns or has listed. */
export const orgAssetsRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/assets",
  summary: "Assets the organization holds (owned, or listed by it and held in escrow)",
  docs: {
    operationId: "getOrganizationAssets",
    tag: "Organization",
    description:
      "Owned by the custodial wallet, or listed by it (held in marketplace escrow). Newest first.",
    errors: { 400: ["Invalid cursor"] },
  },
  auth: "apiKey",
  scopes: ["read"],
  request: { query: orgAssetsQuery },
  responses: { 200: page(assetRecord), ...apiKeyErrors },
  handler: async ({ ctx, principal, query }) =>
    listAssets(ctx.database, {
      limit: query.limit ?? 20,
      cursor: query.cursor,
      assetType: query.assetType,
      holder: await walletAddressOf(ctx, principal!.orgId),
    }),
});

/** `GET /api/v1/transactions` (any scope): the org's writes with their live state. */
export const listTransactionsRoute = defineRoute({
  method: "get",
  path: "/api/v1/transactions",
  summary: "The organization's writes, newest first, with state and failure reason",
  docs: {
    operationId: "listTransactions",
    tag: "Transactions",
    description:
      "Only the calling organization's writes, newest first; filter by `status` and `kind`. " +
      "`reason` says in words why a write failed or was replaced.",
    errors: { 400: ["Invalid cursor"] },
  },
  auth: "apiKey",
  scopes: [],
  request: { query: orgTransactionsQuery },
  responses: { 200: page(orgTransactionSchema), ...apiKeyErrors },
  handler: async ({ ctx, principal, query }) =>
    listOrgTransactions(ctx.database, principal!.orgId, {
      limit: query.limit ?? 20,
      cursor: query.cursor,
      status: query.status,
      kind: query.kind,
    }),
});

/** `GET /api/enterprise/wallet/history` (scope read). */
export const walletHistoryRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/wallet/history",
  summary: "Custodial wallet balance over time",
  docs: {
    operationId: "getWalletHistory",
    tag: "Organization",
    description:
      "The balances the indexer read (one point per block where the balance changed), for a " +
      "chart. Window: `from` to `to` (ISO 8601), or the last `days` days (1 to 365, default 30). " +
      "The newest `limit` points (1 to 1000, default 500); `nextCursor` pages back.",
    errors: {
      400: ["Invalid cursor", "Invalid query: from must be before to and not in the future"],
    },
  },
  auth: "apiKey",
  scopes: ["read"],
  request: { query: walletHistoryQuery },
  responses: { 200: walletHistoryResponse, ...apiKeyErrors, 503: errorBody },
  handler: async ({ ctx, principal, query }) => {
    const to = query.to === undefined ? undefined : new Date(query.to);
    const from =
      query.from === undefined
        ? new Date((to?.getTime() ?? Date.now()) - (query.days ?? 30) * 86_400_000)
        : new Date(query.from);
    if (to !== undefined && from.getTime() >= to.getTime())
      throw new ValidationError("Invalid query: from must be before to and not in the future");
    if (from.getTime() > Date.now())
      throw new ValidationError("Invalid query: from must be before to and not in the future");
    return walletHistory(ctx, principal!.orgId, {
      from,
      to,
      limit: query.limit ?? 500,
      cursor: query.cursor,
    });
  },
});

/** `GET /api/enterprise/stats/issuances` (scope read). */
export const issuanceStatsRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/stats/issuances",
  summary: "Assets issued per day (UTC)",
  docs: {
    operationId: "getIssuanceStats",
    tag: "Organization",
    description: "Days without issuance are 0. `days` from 1 to 365 (default 30).",
  },
  auth: "apiKey",
  scopes: ["read"],
  request: { query: z.strictObject({ days: intParam(1, 365) }) },
  responses: { 200: issuancesResponse, ...apiKeyErrors },
  handler: async ({ ctx, principal, query }) => ({
    data: await issuancesPerDay(ctx.database, principal!.orgId, query.days ?? 30),
  }),
});

/** `GET /api/enterprise/stats/deliveries` (scope read or webhooks). */
export const deliveryStatsRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/stats/deliveries",
  summary: "Webhook deliveries per hour (UTC): succeeded, retried, failed",
  docs: {
    operationId: "getDeliveryStats",
    tag: "Webhooks",
    description:
      "`succeeded`: delivered on the first attempt; `retried`: needed more than one attempt " +
      "(delivered later or still retrying); `failed`: given up. `hours` from 1 to 720 (default 24).",
  },
  auth: "apiKey",
  scopes: ["read", "webhooks"],
  request: { query: z.strictObject({ hours: intParam(1, 720) }) },
  responses: { 200: deliveryStatsResponse, ...apiKeyErrors },
  handler: async ({ ctx, principal, query }) => ({
    data: await deliveriesPerHour(ctx.database, principal!.orgId, query.hours ?? 24),
  }),
});

/** `GET /api/v1/assets/:id/history` response. */
export const assetHistoryResponse = z.object({
  data: z.array(
    z.object({
      event: z.enum([
        "issued",
        "transferred",
        "listed",
        "price-changed",
        "sold",
        "delisted",
        "reclaimed",
        "redeemed",
        "metadata-updated",
      ]),
      blockNumber: z.number().int(),
      logIndex: z.number().int(),
      txHash: z.string(),
      at: timestampSchema,
      from: z.string().nullable(),
      to: z.string().nullable(),
      listingId: z.string().nullable(),
      price: z.string().nullable().describe("native coin decimal (listing and sale events)"),
    }),
  ),
});

/** `GET /api/v1/assets/:id/history` (public, like every indexed read). */
export const assetHistoryRoute = defineRoute({
  method: "get",
  path: "/api/v1/assets/:id/history",
  summary: "A token's on-chain history: issue, transfers, listings, sale, redemption",
  docs: {
    operationId: "getAssetHistory",
    tag: "Assets",
    description: "Oldest first, from the indexed chain logs of the token and of its listings.",
    errors: notFoundErrors("Asset"),
  },
  auth: "none",
  scopes: [],
  request: { params: idParams },
  responses: { 200: assetHistoryResponse, 400: errorBody, 404: errorBody },
  handler: async ({ ctx, params }) => ({
    data: (await assetHistory(ctx.database, params.id)) as z.infer<
      typeof assetHistoryResponse
    >["data"],
  }),
});

/** The organization's own reads (console gallery, charts, transactions). */
export const ORG_READ_ROUTES: readonly AnyRouteDefinition[] = [
  orgAssetsRoute,
  listTransactionsRoute,
  walletHistoryRoute,
  issuanceStatsRoute,
  deliveryStatsRoute,
  assetHistoryRoute,
];
