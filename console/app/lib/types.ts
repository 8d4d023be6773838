/**
 * Response shapes of the relayer endpoints the console calls. Assets, listings, transactions,
 * API keys, webhooks and their deliveries, organizations, the audit log, the console session and the activity
 * reads are the relayer's own domain types (relayer/src/domain); the others are the parts of the
 * relayer's responses (relayer/src/http/routes) the console reads, held against them by
 * test/console/console-drift.test.ts (checked by `npm run typecheck`).
 */
import type { AssetRecord, TransactionState } from "../../../relayer/src/domain/index.ts";

export type {
  ApiKeySummary,
  AssetHistoryEvent,
  AssetRecord,
  AssetTypeRecord as AssetType,
  AuditRecord,
  CreatedApiKey,
  CreatedWebhook,
  Delivery,
  DeliveryAttempt,
  DeliveryHour,
  DeliveryLog,
  IssuanceDay,
  ListingRecord,
  OrgOverview,
  OrgTransactionSummary as TransactionSummary,
  Plan,
  RegisteredOrganization as RegisteredOrg,
  RotatedWebhookSecret,
  SessionInfo,
  SessionKind,
  TransactionState,
  TransactionStatus,
  WebhookEventKind,
  WebhookSummary,
} from "../../../relayer/src/domain/index.ts";

/** `GET`/`PUT /api/enterprise/wallet/alerts`. */
export interface WalletAlerts {
  walletAddress: string;
  lowBalance: string;
  lowBalanceWei: string;
  isDefault: boolean;
  state: "ok" | "low" | "unknown";
  balance: string | null;
  balanceWei: string | null;
  blockNumber: number | null;
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
