/**
 * The bodies of the relayer endpoints the console calls, every one taken from the relayer's
 * OpenAPI document: `./api-types` is generated from it (by
 * relayer/src/http/openapi/console-api-types.ts, which the console build, `npm run typecheck` and
 * `npm run lint` run first; not committed), so a renamed or retyped field of a route's schema is
 * a type error here. test/console/console-drift.test.ts holds these against the route schemas and
 * the domain types too.
 */
import type { paths } from "./api-types.ts";

type Method = "get" | "post" | "put" | "patch" | "delete";

/** The methods the document declares for `P`. */
type MethodOf<P extends keyof paths> = {
  [M in Method]-?: undefined extends paths[P][M] ? never : M;
}[Method];

/** A JSON response carrying `Body`. */
type Json<Body> = { content: { "application/json": Body } };

/**
 * The JSON body an operation answers with on success: its lowest 2xx status, as the relayer
 * documents it (`successStatus` in relayer/src/http/route-definition.ts).
 */
type SuccessBody<Operation> = Operation extends { responses: { 200: Json<infer Body> } }
  ? Body
  : Operation extends { responses: { 201: Json<infer Body> } }
    ? Body
    : Operation extends { responses: { 202: Json<infer Body> } }
      ? Body
      : never;

/**
 * The JSON body that `M P` answers with on success.
 *
 * @example
 * api<ResponseBody<"/api/enterprise/keys", "get">>("GET", "/api/enterprise/keys")
 */
export type ResponseBody<P extends keyof paths, M extends MethodOf<P>> = SuccessBody<paths[P][M]>;

/** A row of the `data` array that `GET P` answers with (the lists and the cursor pages). */
export type ListRow<P extends keyof paths> =
  SuccessBody<paths[P]["get"]> extends { data: Array<infer Row> } ? Row : never;

/** The paths whose `GET` answers a cursor page: `{ data, nextCursor }`. */
export type PagedPath = {
  [P in keyof paths]: SuccessBody<paths[P]["get"]> extends {
    data: unknown[];
    nextCursor: string | null;
  }
    ? P
    : never;
}[keyof paths];

/** `GET /api/console/session` (and its `POST`): who is signed in, with the CSRF token. */
export type SessionInfo = ResponseBody<"/api/console/session", "get">;

export type WalletBalance = ResponseBody<"/api/enterprise/wallet", "get">;
/** `GET`/`PUT /api/enterprise/wallet/alerts`. */
export type WalletAlerts = ResponseBody<"/api/enterprise/wallet/alerts", "get">;
export type WalletHistory = ResponseBody<"/api/enterprise/wallet/history", "get">;

/** `GET /api/v1/assets/{id}` and the gallery's items: the full asset record. */
export type AssetRecord = ResponseBody<"/api/v1/assets/{id}", "get">;
export type AssetDetail = AssetRecord;
export type AssetHistoryEvent = ListRow<"/api/v1/assets/{id}/history">;
export type AssetType = ListRow<"/api/v1/asset-types">;
export type ListingRecord = ResponseBody<"/api/v1/marketplace/{id}", "get">;

export type TransactionSummary = ListRow<"/api/v1/transactions">;
/** `GET /api/v1/transactions/{id}`: a recorded write, or one the policy holds for approval. */
export type AnyTransactionStatus = ResponseBody<"/api/v1/transactions/{id}", "get">;
/** A recorded write's status. */
export type TransactionStatus = Extract<AnyTransactionStatus, { attempts: unknown }>;
/** A write held for approval (`pending_approval`, ...), not recorded yet. */
export type HeldTransactionStatus = Exclude<AnyTransactionStatus, { attempts: unknown }>;
/** A write's state (the relayer's `TRANSACTION_STATES`). */
export type TxStatus = TransactionStatus["status"];

export type ApiKeySummary = ResponseBody<"/api/enterprise/keys", "get">["keys"][number];
export type CreatedApiKey = ResponseBody<"/api/enterprise/keys", "post">;

export type WebhookSummary = ResponseBody<"/api/enterprise/webhooks", "get">["webhooks"][number];
export type CreatedWebhook = ResponseBody<"/api/enterprise/webhooks", "post">;
export type RotatedWebhookSecret = ResponseBody<
  "/api/enterprise/webhooks/{webhookId}/rotate-secret",
  "post"
>;
export type DeliveryLog = ResponseBody<"/api/enterprise/webhooks/{webhookId}/deliveries", "get">;
export type Delivery = DeliveryLog["deliveries"][number];

export type OrgOverview = ResponseBody<"/api/enterprise/orgs/{orgId}", "get">;
export type RegisteredOrg = ResponseBody<"/api/enterprise/register", "post">;
export type AuditRecord = ListRow<"/api/enterprise/audit-log">;
