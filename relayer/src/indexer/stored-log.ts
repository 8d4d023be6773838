import type { ContractEventName } from "../chain/contracts.js";

/** The events the indexer reads (the read model and the webhook events are built from these). */
export const INDEXED_EVENTS = [
  "AssetTypeRegistered",
  "AssetIssued",
  "AssetRedeemed",
  "Transfer",
  "MetadataUpdate",
  "BatchMetadataUpdate",
  "ListingCreated",
  "ListingPriceUpdated",
  "ListingSold",
  "ListingCancelled",
  "ListingReclaimed",
] as const satisfies readonly ContractEventName[];

/** Names of the indexed events. */
export type IndexedEventName = (typeof INDEXED_EVENTS)[number];

/**
 * One decoded contract log as the indexer stores it (`chain_logs`) and applies it. Arguments are
 * kept as strings (uint as decimal, addresses lower-case, bytes as 0x hex) so the same shape
 * round-trips through jsonb for replays after a reorg.
 */
export interface StoredLog {
  blockNumber: number;
  blockHash: string;
  logIndex: number;
  txHash: string;
  /** Block timestamp, seconds. */
  blockTimestamp: number;
  kind: IndexedEventName;
  tokenId: string | null;
  listingId: string | null;
  args: Record<string, string>;
}
