import type { TransactionState } from "./transaction.ts";

/**
 * What the console's activity views read: a token's history, an organization's writes, and its
 * issuances and webhook deliveries over time (`reads/asset-history.ts`, `reads/org-transactions.ts`,
 * `reads/org-stats.ts` build them).
 */

/** One on-chain event in a token's life, oldest first. */
export interface AssetHistoryEvent {
  /** issued | transferred | listed | price-changed | sold | delisted | reclaimed | redeemed | metadata-updated */
  event: string;
  blockNumber: number;
  logIndex: number;
  txHash: string;
  at: string;
  from: string | null;
  to: string | null;
  listingId: string | null;
  /** Native coin decimal, for listing and sale events. */
  price: string | null;
}

/** One write of an organization, as the transactions list shows it. */
export interface OrgTransactionSummary {
  transactionId: string;
  kind: string;
  status: TransactionState;
  nonce: number | null;
  /** The hash that was mined, else the latest broadcast one; null before the first broadcast. */
  txHash: string | null;
  hashes: string[];
  blockNumber: number | null;
  /** What the write produced once final (tokenId, listingId, ...), as its own answer says. */
  result: Record<string, unknown> | null;
  /** The failure as the engine recorded it (`Below min stake`), null unless failed or replaced. */
  error: string | null;
  /** The failure (or a live problem) in a sentence a person can act on; null when there is none. */
  reason: string | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  confirmedAt: string | null;
  failedAt: string | null;
}

/** Assets minted by the organization's wallet on one UTC day. */
export interface IssuanceDay {
  day: string;
  issued: number;
}

/** Webhook deliveries of the organization created in one UTC hour, by outcome. */
export interface DeliveryHour {
  hour: string;
  /** Delivered on the first attempt. */
  succeeded: number;
  /** Needed more than one attempt: delivered later, or still being retried. */
  retried: number;
  /** Given up (after the retry schedule ran out, or the webhook was disabled). */
  failed: number;
}
