/**
 * Response shapes of the relayer endpoints the console calls. Assets, listings, transactions and
 * webhook events are the relayer's own domain types; the others are the parts of the relayer's
 * responses (relayer/src/http/routes) the console reads, held against them by
 * test/console/console-drift.test.ts (checked by `npm run typecheck`).
 */
export type {
  AssetRecord,
  AssetTypeRecord as AssetType,
  ListingRecord,
  TransactionStatus,
  WebhookEventKind,
} from "../../../relayer/src/domain/index.ts";

export type SessionKind = "org" | "operator";

export interface SessionInfo {
  kind: SessionKind;
  orgId: string | null;
  orgName: string | null;
  plan: string | null;
  walletAddress: string | null;
  scopes: string[];
  expiresAt: string;
  csrfToken: string;
}

export interface WalletBalance {
  walletAddress: string;
  balance: string;
  balanceWei: string;
  chain: number;
}

export interface ApiKeySummary {
  keyId: string;
  label: string | null;
  scopes: string[];
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiKey extends ApiKeySummary {
  apiKey: string;
}

export interface WebhookSummary {
  webhookId: string;
  url: string;
  events: string[];
  enabled: boolean;
  createdAt: string;
}

export interface CreatedWebhook extends WebhookSummary {
  secret: string;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  statusCode: number | null;
  latencyMs: number;
  responseSnippet: string | null;
  error: string | null;
}

export interface Delivery {
  deliveryId: string;
  eventId: string;
  event: string;
  txHash: string | null;
  blockNumber: number | null;
  status: "pending" | "retrying" | "delivered" | "failed" | "cancelled";
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attemptLog: DeliveryAttempt[];
}

export interface DeliveryLog {
  webhookId: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  deliveries: Delivery[];
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface OperatorOrg {
  orgId: string;
  name: string;
  plan: string;
  scopes: string[];
  walletAddress: string | null;
  createdAt: string;
}

export interface RegisteredOrg {
  orgId: string;
  orgName: string;
  apiKey: string;
  keyId: string;
  walletAddress: string;
  scopes: string[];
  plan: string;
}
