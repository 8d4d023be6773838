import { MAX_WEBHOOKS_PER_ORG } from "../services/webhooks.js";

/** OpenAPI tag names, in the order the reference page lists them. */
export const TAGS = [
  { name: "Assets", description: "Indexed asset (NFT) reads and ERC-721 metadata." },
  { name: "Marketplace", description: "Indexed marketplace listings." },
  {
    name: "Writes",
    description:
      "On-chain writes signed by the organization's custodial wallet. Send an `Idempotency-Key` " +
      "so a retried call never issues twice; `Prefer: respond-async` answers 202 at once.",
  },
  { name: "Transactions", description: "State of a write (async mode, or after a timeout)." },
  { name: "Organization", description: "Onboarding and the custodial wallet." },
  { name: "API keys", description: "Additional keys with a subset of the calling key's scopes." },
  { name: "Webhooks", description: "Signed HTTPS callbacks for on-chain activity." },
  {
    name: "Console",
    description: "Session endpoints of the admin console (cookie sessions; not for integrations).",
  },
  { name: "System", description: "Liveness, status and metrics." },
  { name: "Documentation", description: "This document, the reference page, Postman and the SDK." },
] as const;

/** One of `TAGS`. */
export type TagName = (typeof TAGS)[number]["name"];

/** What the route registry does not hold: a stable operation id, tag, longer text, extra errors. */
export interface OperationMetadata {
  /** Also the SDK method name where the SDK covers the operation. */
  operationId: string;
  tag: TagName;
  /** Markdown appended after the summary. */
  description?: string;
  /** Route-specific `error` strings by status, shown as examples before the generic ones. */
  errors?: Partial<Record<number, readonly string[]>>;
}

const notFound = (what: string) => ({ 404: [`${what} not found`] });

/**
 * Metadata of the documented routes that do not carry their own `docs` (the write routes take
 * theirs from their kind module, `writes/kinds/`), keyed by `routeKey` (`"GET /api/v1/assets"`).
 * A route missing here still appears in the document (with a derived id); the coverage test
 * insists on an entry so the SDK names stay stable.
 */
export const OPERATION_METADATA: Readonly<Record<string, OperationMetadata>> = {
  "GET /": {
    operationId: "getServiceIndex",
    tag: "System",
    description:
      "Where to go next: the API reference (`/docs`), the admin console, the OpenAPI document, " +
      "the Postman collection, the SDK bundles, status and liveness, as paths relative to this server.",
  },
  "GET /healthz": { operationId: "getHealth", tag: "System" },
  "GET /api/v1/status": {
    operationId: "getStatus",
    tag: "System",
    description: "`status` is `degraded` when the RPC node, the database or the queue is not ok.",
  },
  "GET /api/v1/coin-price": { operationId: "getCoinPrice", tag: "System" },
  "GET /api/v1/assets": {
    operationId: "getAssets",
    tag: "Assets",
    description:
      "Pass `nextCursor` back as `cursor` for the next page; `null` means the last page.",
    errors: { 400: ["Invalid field: limit (must be an integer from 1 to 100)", "Invalid cursor"] },
  },
  "GET /api/v1/assets/:id": { operationId: "getAsset", tag: "Assets", errors: notFound("Asset") },
  "GET /api/v1/nft/:id": { operationId: "getNft", tag: "Assets", errors: notFound("Asset") },
  "GET /api/v1/asset-types": { operationId: "getAssetTypes", tag: "Assets" },
  "GET /api/v1/marketplace": {
    operationId: "getListings",
    tag: "Marketplace",
    errors: { 400: ["Invalid field: status (must be one of active, sold, cancelled, expired)"] },
  },
  "GET /api/v1/marketplace/:id": {
    operationId: "getListing",
    tag: "Marketplace",
    errors: notFound("Listing"),
  },
  "GET /api/v1/transactions": {
    operationId: "listTransactions",
    tag: "Transactions",
    description:
      "Only the calling organization's writes, newest first; filter by `status` and `kind`. " +
      "`reason` says in words why a write failed or was replaced.",
    errors: { 400: ["Invalid cursor"] },
  },
  "GET /api/v1/transactions/:id": {
    operationId: "getTransaction",
    tag: "Transactions",
    description: "Only the calling organization's writes; any scope.",
    errors: notFound("Transaction"),
  },
  "POST /api/enterprise/register": {
    operationId: "registerOrganization",
    tag: "Organization",
    description: "For the operator's staff only. The API key in the answer is shown only once.",
    errors: { 400: ["Missing required field: orgName"] },
  },
  "POST /api/enterprise/marketplace/rescue": {
    operationId: "rescueMarketplaceToken",
    tag: "Marketplace",
    description:
      "For the operator's staff only. Sends a token the marketplace holds without a listing " +
      "(moved there by a plain `transferFrom`) to `toAddress`, from the operator account. Never " +
      "a token backing an active or expired, unreclaimed listing.",
    errors: {
      400: [
        "Token is not held by the marketplace",
        "Token backs an active listing (listing 3)",
        "Invalid field: toAddress (not a 0x address)",
      ],
      404: ["Asset not found"],
    },
  },
  "POST /api/console/session": {
    operationId: "createConsoleSession",
    tag: "Console",
    description: "Sets an HttpOnly session cookie; later console calls send a CSRF token header.",
  },
  "GET /api/console/session": { operationId: "getConsoleSession", tag: "Console" },
  "DELETE /api/console/session": { operationId: "deleteConsoleSession", tag: "Console" },
  "GET /api/console/operator/orgs": { operationId: "listOrganizations", tag: "Console" },
  "POST /api/console/operator/asset-types": {
    operationId: "registerAssetTypeAsOperator",
    tag: "Console",
  },
  "GET /api/enterprise/wallet": { operationId: "getWallet", tag: "Organization" },
  "GET /api/enterprise/wallet/history": {
    operationId: "getWalletHistory",
    tag: "Organization",
    description:
      "Rebuilt from the current balance and the changes the service records (gas, stakes, " +
      "payments, sale proceeds, returned stakes); coins received from elsewhere show as part of " +
      "the balance before the next recorded change. `days` from 1 to 365 (default 30).",
  },
  "GET /api/v1/assets/:id/history": {
    operationId: "getAssetHistory",
    tag: "Assets",
    description: "Oldest first, from the indexed chain logs of the token and of its listings.",
    errors: notFound("Asset"),
  },
  "GET /api/enterprise/assets": {
    operationId: "getOrganizationAssets",
    tag: "Organization",
    description:
      "Owned by the custodial wallet, or listed by it (held in marketplace escrow). Newest first.",
    errors: { 400: ["Invalid cursor"] },
  },
  "GET /api/enterprise/stats/issuances": {
    operationId: "getIssuanceStats",
    tag: "Organization",
    description: "Days without issuance are 0. `days` from 1 to 365 (default 30).",
  },
  "GET /api/enterprise/stats/deliveries": {
    operationId: "getDeliveryStats",
    tag: "Webhooks",
    description:
      "`succeeded`: delivered on the first attempt; `retried`: needed more than one attempt " +
      "(delivered later or still retrying); `failed`: given up. `hours` from 1 to 720 (default 24).",
  },
  "GET /api/enterprise/keys": { operationId: "listKeys", tag: "API keys" },
  "POST /api/enterprise/keys": {
    operationId: "createKey",
    tag: "API keys",
    description: "The key string is in this answer only.",
  },
  "DELETE /api/enterprise/keys": {
    operationId: "revokeKey",
    tag: "API keys",
    errors: { ...notFound("API key"), 409: ["Cannot revoke the last active key"] },
  },
  "DELETE /api/enterprise/keys/:keyId": {
    operationId: "revokeKeyById",
    tag: "API keys",
    errors: { ...notFound("API key"), 409: ["Cannot revoke the last active key"] },
  },
  "GET /api/enterprise/webhooks": { operationId: "listWebhooks", tag: "Webhooks" },
  "POST /api/enterprise/webhooks": {
    operationId: "createWebhook",
    tag: "Webhooks",
    description:
      "The secret is in this answer only. Payloads are under `webhooks` in this document.",
    errors: { 409: [`Webhook limit reached (${MAX_WEBHOOKS_PER_ORG} per organization)`] },
  },
  "DELETE /api/enterprise/webhooks": {
    operationId: "deleteWebhook",
    tag: "Webhooks",
    errors: notFound("Webhook"),
  },
  "DELETE /api/enterprise/webhooks/:webhookId": {
    operationId: "deleteWebhookById",
    tag: "Webhooks",
    errors: notFound("Webhook"),
  },
  "GET /api/enterprise/webhooks/:webhookId/deliveries": {
    operationId: "getWebhookDeliveries",
    tag: "Webhooks",
    errors: notFound("Webhook"),
  },
  "POST /api/enterprise/webhooks/:webhookId/deliveries/:deliveryId/redeliver": {
    operationId: "redeliverWebhook",
    tag: "Webhooks",
    errors: { 404: ["Webhook not found", "Delivery not found"] },
  },
  "POST /api/enterprise/webhooks/:webhookId/test": {
    operationId: "testWebhook",
    tag: "Webhooks",
    errors: notFound("Webhook"),
  },
};
