/**
 * Response shapes of the relayer endpoints the console calls. Assets, listings, transactions,
 * API keys, webhooks and their deliveries, organizations, the console session and the activity
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
  CreatedApiKey,
  CreatedWebhook,
  Delivery,
  DeliveryAttempt,
  DeliveryHour,
  DeliveryLog,
  IssuanceDay,
  ListingRecord,
  OperatorOrgSummary as OperatorOrg,
  OrgTransactionSummary as TransactionSummary,
  Plan,
  RegisteredOrganization as RegisteredOrg,
  SessionInfo,
  SessionKind,
  TransactionState,
  TransactionStatus,
  WebhookEventKind,
  WebhookSummary,
} from "../../../relayer/src/domain/index.ts";

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
