/**
 * Request and response types of the API, inferred from the relayer's own zod schemas (the ones
 * that validate requests and document responses). Type-only imports: nothing of the server is
 * bundled.
 */
import type { z } from "zod";
import type {
  createKeyRequest,
  createKeyResponse,
  listKeysResponse,
  revokeKeyResponse,
} from "../src/http/routes/enterprise-keys.js";
import type {
  walletAlertsBody,
  walletAlertsResponse,
  walletResponse,
} from "../src/http/routes/enterprise-wallet.js";
import type { orgPolicyResponse } from "../src/domain/policy.js";
import type { listApprovalsRoute } from "../src/http/routes/approvals.js";
import type { auditLogQuery } from "../src/http/routes/enterprise-audit-log.js";
import type {
  allowlistChangeResponse,
  allowlistRequest,
  allowlistResponse,
  assetTypePatchRequest,
  assetTypePatchResponse,
  forcedTransferRequest,
  forcedTransferResponse,
  freezeResponse,
  pauseResponse,
  reasonRequest,
} from "../src/http/routes/enterprise-compliance.js";
import type { rescueRequest, rescueResponse } from "../src/http/routes/enterprise-marketplace.js";
import type {
  listOrgsQuery,
  listOrgsResponse,
  orgKeysResponse,
  orgOverviewSchema,
  updateOrgRequest,
  updateOrgResponse,
} from "../src/http/routes/enterprise-orgs.js";
import type { registerRequest, registerResponse } from "../src/http/routes/enterprise-register.js";
import type { operatorRequestSchema } from "../src/http/routes/operator-requests.js";
import type {
  operatorAssetTypeRequest,
  operatorAssetTypeResponse,
} from "../src/http/routes/session-operator.js";
import type {
  createWebhookRequest,
  createWebhookResponse,
  deleteWebhookResponse,
  listWebhooksResponse,
  rotateSecretRequest,
  updateWebhookRequest,
} from "../src/http/routes/enterprise-webhooks.js";
import type { rotatedWebhookSecret, webhookSummary } from "../src/domain/webhook.js";
import type {
  assetTypesResponse,
  coinPriceResponse,
  listAssetsQuery,
  listListingsQuery,
  nftMetadataResponse,
  statusResponse,
} from "../src/http/routes/read.js";
import type {
  assetHistoryResponse,
  deliveryStatsResponse,
  issuancesResponse,
  orgTransactionSchema,
  orgTransactionsQuery,
  walletHistoryResponse,
} from "../src/http/routes/org-reads.js";
import type {
  deliveryLogResponse,
  replayRequest,
  replayResponse,
} from "../src/http/routes/webhook-deliveries.js";
import type { batchIssue } from "../src/writes/kinds/batch-issue.js";
import type { buy } from "../src/writes/kinds/buy.js";
import type { delist } from "../src/writes/kinds/delist.js";
import type { issueAsset } from "../src/writes/kinds/issue-asset.js";
import type { list } from "../src/writes/kinds/list.js";
import type { redeemAsset } from "../src/writes/kinds/redeem-asset.js";
import type { registerAssetType } from "../src/writes/kinds/register-asset-type.js";
import type { transfer } from "../src/writes/kinds/transfer.js";
import type { WebhookPayload } from "../src/domain/webhook-event.js";

export type {
  AssetRecord,
  AuditRecord,
  ListingRecord,
  ListingState,
  TransactionStatus,
  WebhookEventKind,
  WebhookEventPayload,
  WriteAccepted,
} from "../src/domain/index.js";

/** One asset to issue (body of `issueAsset`, item of `batchIssue`). */
export type IssueAssetInput = z.input<(typeof issueAsset)["request"]>;
/** Result of `issueAsset`. */
export type IssueAssetResult = z.output<(typeof issueAsset)["response"]>;
/** Result of `batchIssue`: per-item results, partial failure possible. */
export type BatchIssueResult = z.output<(typeof batchIssue)["response"]>;
/** Body of `transfer`. */
export type TransferInput = z.input<(typeof transfer)["request"]>;
/** Result of `transfer`. */
export type TransferResult = z.output<(typeof transfer)["response"]>;
/** Body of `listAsset`. */
export type ListAssetInput = z.input<(typeof list)["request"]>;
/** Result of `listAsset`. */
export type ListAssetResult = z.output<(typeof list)["response"]>;
/** Body of `buyAsset`. */
export type BuyAssetInput = z.input<(typeof buy)["request"]>;
/** Result of `buyAsset`. */
export type BuyAssetResult = z.output<(typeof buy)["response"]>;
/** Body of `delistAsset`. */
export type DelistAssetInput = z.input<(typeof delist)["request"]>;
/** Result of `delistAsset`. */
export type DelistAssetResult = z.output<(typeof delist)["response"]>;
/** Body of `redeemAsset`. */
export type RedeemAssetInput = z.input<(typeof redeemAsset)["request"]>;
/** Result of `redeemAsset`. */
export type RedeemAssetResult = z.output<(typeof redeemAsset)["response"]>;
/** Body of `registerAssetType`. */
export type RegisterAssetTypeInput = z.input<(typeof registerAssetType)["request"]>;
/** Result of `registerAssetType`. */
export type RegisterAssetTypeResult = z.output<(typeof registerAssetType)["response"]>;

/** A page of a cursor-paginated list. */
export interface Page<T> {
  data: T[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}
/** Filters of `getAssets`. */
export type GetAssetsParams = Omit<z.input<typeof listAssetsQuery>, "limit"> & { limit?: number };
/** Filters of `getListings`. */
export type GetListingsParams = Omit<z.input<typeof listListingsQuery>, "limit"> & {
  limit?: number;
};
/** Result of `getStatus`. */
export type StatusResult = z.output<typeof statusResponse>;
/** Result of `getCoinPrice`. */
export type CoinPriceResult = z.output<typeof coinPriceResponse>;
/** ERC-721 metadata document of `getNft`. */
export type NftMetadata = z.output<typeof nftMetadataResponse>;
/** Result of `getAssetTypes`. */
export type AssetTypesResult = z.output<typeof assetTypesResponse>;
/** One write in `listTransactions`. */
export type TransactionSummary = z.output<typeof orgTransactionSchema>;
/** Query of `listTransactions`. */
export type ListTransactionsParams = Omit<z.input<typeof orgTransactionsQuery>, "limit"> & {
  limit?: number;
};
/** Body of `getWalletHistory`. */
export type WalletHistory = z.output<typeof walletHistoryResponse>;
/** Body of `getIssuanceStats`. */
export type IssuanceStats = z.output<typeof issuancesResponse>;
/** Body of `getDeliveryStats`. */
export type DeliveryStats = z.output<typeof deliveryStatsResponse>;
/** Body of `getAssetHistory`. */
export type AssetHistory = z.output<typeof assetHistoryResponse>;

/** Filters of `listAuditLog` (`from` and `to`: ISO 8601 times or dates). */
export type ListAuditLogParams = Omit<z.input<typeof auditLogQuery>, "limit" | "orgId"> & {
  limit?: number;
};

/** Result of `getWallet`. */
export type WalletBalance = z.output<typeof walletResponse>;
/** Body of `listApprovals`: writes the policy holds, waiting for approval. */
export type PendingApprovals = z.output<(typeof listApprovalsRoute.responses)[200]>;
/** Body of `getPolicy`: the organization's policy (docs/policy.md) and when it last changed. */
export type OrgPolicy = z.output<typeof orgPolicyResponse>;
/** Body of `getWalletAlerts` and `setWalletAlerts`. */
export type WalletAlerts = z.output<typeof walletAlertsResponse>;
/** Input of `setWalletAlerts`. */
export type SetWalletAlertsInput = z.input<typeof walletAlertsBody>;
/** Result of `listKeys`. */
export type KeyList = z.output<typeof listKeysResponse>;
/** Body of `createKey`. */
export type CreateKeyInput = z.input<typeof createKeyRequest>;
/** Result of `createKey` (the key string is shown only here). */
export type CreatedKey = z.output<typeof createKeyResponse>;
/** Result of `revokeKey`. */
export type RevokedKey = z.output<typeof revokeKeyResponse>;
/** Result of `listWebhooks`. */
export type WebhookList = z.output<typeof listWebhooksResponse>;
/** Body of `createWebhook`. */
export type CreateWebhookInput = z.input<typeof createWebhookRequest>;
/** Result of `createWebhook` (the secret is shown only here). */
export type CreatedWebhook = z.output<typeof createWebhookResponse>;
/** Result of `deleteWebhook`. */
export type DeletedWebhook = z.output<typeof deleteWebhookResponse>;
/** Result of `getWebhookDeliveries`. */
export type DeliveryLog = z.output<typeof deliveryLogResponse>;
/** Result of `redeliverWebhook`. */
export interface RedeliveryQueued {
  deliveryId: string;
  queued: true;
}
/** Result of `testWebhook`. */
export interface TestEventQueued {
  deliveryId: string;
  eventId: string;
  queued: true;
}
/** Body of `updateWebhook`: the new event filter. */
export type UpdateWebhookInput = z.input<typeof updateWebhookRequest>;
/** A webhook as listed (result of `updateWebhook`). */
export type WebhookSummary = z.output<typeof webhookSummary>;
/** Body of `rotateWebhookSecret` (optional: a secret of your own). */
export type RotateWebhookSecretInput = z.input<typeof rotateSecretRequest>;
/** Result of `rotateWebhookSecret` (the new secret is shown only here). */
export type RotatedWebhookSecret = z.output<typeof rotatedWebhookSecret>;
/** Body of `replayWebhook`: ISO 8601 date-times, at most 31 days apart. */
export type ReplayWebhookInput = z.input<typeof replayRequest>;
/** Result of `replayWebhook`. */
export type ReplayQueued = z.output<typeof replayResponse>;
/** The JSON body of a webhook delivery. */
export type WebhookEvent = WebhookPayload;

// ---- operator staff (`RwaOperatorClient`, admin token) ----

/** Body of `registerOrganization`. */
export type RegisterOrganizationInput = z.input<typeof registerRequest>;
/** Result of `registerOrganization` (the API key is shown only here). */
export type RegisteredOrganization = z.output<typeof registerResponse>;
/** Filters of `listOrgs`: `q` (part of the name), `limit` (1-100), `cursor`. */
export type ListOrgsParams = Omit<z.input<typeof listOrgsQuery>, "limit"> & { limit?: number };
/** An organization as operator staff see it (`listOrgs`, `getOrg`). */
export type OrgOverview = z.output<typeof orgOverviewSchema>;
/** Result of `listOrgs`. */
export type OrgList = z.output<typeof listOrgsResponse>;
/** Body of `updateOrg`: `plan` and/or `suspended`. */
export type UpdateOrgInput = z.input<typeof updateOrgRequest>;
/** Result of `updateOrg` (and `suspendOrg`, `resumeOrg`, `changeOrgPlan`). */
export type UpdatedOrg = z.output<typeof updateOrgResponse>;
/** A plan (`free`, `basic`, `pro`, `enterprise`). */
export type OrgPlan = NonNullable<UpdateOrgInput["plan"]>;
/** Result of `listOrgKeys`. */
export type OrgKeyList = z.output<typeof orgKeysResponse>;
/** Body of `freezeAsset`, `unfreezeAsset`, `pauseMarket` and `resumeMarket`: the reason. */
export type ReasonInput = z.input<typeof reasonRequest>;
/** Result of `freezeAsset` and `unfreezeAsset`. */
export type FreezeResult = z.output<typeof freezeResponse>;
/** Result of `pauseMarket` and `resumeMarket`. */
export type PauseResult = z.output<typeof pauseResponse>;
/** Body of `forceTransferAsset`. */
export type ForceTransferInput = z.input<typeof forcedTransferRequest>;
/** Result of `forceTransferAsset`. */
export type ForceTransferResult = z.output<typeof forcedTransferResponse>;
/**
 * An operator request (docs/people.md "Operator four-eyes"): what `freezeAsset`, `unfreezeAsset`
 * and `forceTransferAsset` answer (202) while four-eyes is on, and `getOperatorRequest` reads.
 */
export type OperatorRequest = z.output<typeof operatorRequestSchema>;
/** Result of `listOperatorRequests`. */
export type OperatorRequestList = { requests: OperatorRequest[] };
/** Body of `setAssetTypeRestricted`. */
export type AssetTypeRestrictionInput = z.input<typeof assetTypePatchRequest>;
/** Result of `setAssetTypeRestricted`. */
export type AssetTypeRestrictionResult = z.output<typeof assetTypePatchResponse>;
/** Body of `addToAllowlist` and `removeFromAllowlist`. */
export type AllowlistInput = z.input<typeof allowlistRequest>;
/** Result of `addToAllowlist` and `removeFromAllowlist`. */
export type AllowlistChange = z.output<typeof allowlistChangeResponse>;
/** Result of `listAllowlist`. */
export type Allowlist = z.output<typeof allowlistResponse>;
/** Body of `rescueMarketplaceToken`. */
export type RescueInput = z.input<typeof rescueRequest>;
/** Result of `rescueMarketplaceToken`. */
export type RescueResult = z.output<typeof rescueResponse>;
/** Body of `registerAssetTypeAsOperator`. */
export type OperatorAssetTypeInput = z.input<typeof operatorAssetTypeRequest>;
/** Result of `registerAssetTypeAsOperator`. */
export type OperatorAssetTypeResult = z.output<typeof operatorAssetTypeResponse>;
/** Filters of the operator's `listAuditLog`: those of an organization's, and `orgId`. */
export type OperatorAuditLogParams = Omit<z.input<typeof auditLogQuery>, "limit"> & {
  limit?: number;
};
