/**
 * Response shapes of the relayer endpoints the console calls. Assets, listings, transactions,
 * API keys, webhooks and their deliveries are the relayer's own domain types; the others are the
 * parts of the relayer's responses (relayer/src/http/routes) the console reads, held against them
 * by test/console/console-drift.test.ts (checked by `npm run typecheck`).
 */
import type { AssetRecord, TransactionState } from "../../../relayer/src/domain/index.ts";

export type {
  ApiKeySummary,
  AssetRecord,
  AssetTypeRecord as AssetType,
  CreatedApiKey,
  CreatedWebhook,
  Delivery,
  DeliveryAttempt,
  DeliveryLog,
  ListingRecord,
  TransactionState,
  TransactionStatus,
  WebhookEventKind,
  WebhookSummary,
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

export type {
  AssetHistoryEvent,
  DeliveryHour,
  IssuanceDay,
  OrgTransactionSummary as TransactionSummary,
} from "../../../relayer/src/domain/index.ts";

/** `GET /api/v1/assets/{id}` and the gallery's items: the full asset record. */
export type AssetDetail = AssetRecord;

/** A write's state (the relayer's `TRANSACTION_STATES`). */
export type TxStatus = TransactionState;

export interface WalletHistory {
  walletAddress: string;
  balance: string;
  balanceWei: string;
  since: string;
  points: Array<{ at: string; balance: string; balanceWei: string }>;
  truncated: boolean;
}
