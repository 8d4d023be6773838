import type { ContractEventArgs, ContractEventName } from "../chain/contracts/contract-events.js";

/**
 * Whether the indexer reads each contract event (the read model and the webhook events are built
 * from the ones marked true). Every member of `ContractEvent` is listed, so an event added to a
 * contract is a type error here until someone decides.
 */
const INDEXED = {
  AssetTypeRegistered: true,
  AssetIssued: true,
  AssetRedeemed: true,
  Transfer: true,
  MetadataUpdate: true,
  BatchMetadataUpdate: true,
  ListingCreated: true,
  ListingPriceUpdated: true,
  ListingSold: true,
  ListingCancelled: true,
  ListingReclaimed: true,
  // Compliance: ours carry the reason, so ERC-7943's Frozen / ForcedTransfer and Pausable's
  // Paused / Unpaused (emitted beside them) are not read twice.
  AssetFrozen: true,
  AssetUnfrozen: true,
  AssetForcedTransfer: true,
  MarketPaused: true,
  MarketResumed: true,
  AssetTypeRestrictionSet: true,
  AllowlistUpdated: true,
  Frozen: false,
  ForcedTransfer: false,
  Paused: false,
  Unpaused: false,
  MarketplaceSet: false,
  // Nothing the read model or a webhook shows: approvals and proceeds move no token (a rescue
  // moves one through the token's own Transfer); roles and the base URI are operator state.
  Approval: false,
  ApprovalForAll: false,
  BaseURIUpdated: false,
  ProceedsCredited: false,
  ProceedsWithdrawn: false,
  TokenRescued: false,
  RoleAdminChanged: false,
  RoleGranted: false,
  RoleRevoked: false,
} as const satisfies Record<ContractEventName, boolean>;

/** Names of the indexed events. */
export type IndexedEventName = {
  [N in ContractEventName]: (typeof INDEXED)[N] extends true ? N : never;
}[ContractEventName];

/** The events the indexer reads, in the order of `INDEXED`. */
export const INDEXED_EVENTS = (Object.keys(INDEXED) as ContractEventName[]).filter(
  (name): name is IndexedEventName => INDEXED[name],
);

/** Whether the indexer reads the event `name`. */
export function isIndexed(name: ContractEventName): name is IndexedEventName {
  return INDEXED[name];
}

/**
 * An event's arguments as the indexer stores them: uint as decimal, addresses lower-case, bytes
 * as 0x hex, strings as emitted (`decode-log.ts`). A struct or array argument would be `never`
 * (the indexer stores none).
 */
export type StoredEventArgs<N extends IndexedEventName> = {
  [K in keyof ContractEventArgs<N>]: ContractEventArgs<N>[K] extends
    | bigint
    | string
    | number
    | boolean
    ? string
    : never;
};

/** A stored log of the event `N`. */
export interface StoredLogOf<N extends IndexedEventName> {
  blockNumber: number;
  blockHash: string;
  logIndex: number;
  txHash: string;
  /** Block timestamp, seconds. */
  blockTimestamp: number;
  kind: N;
  tokenId: string | null;
  listingId: string | null;
  args: StoredEventArgs<N>;
}

/**
 * One decoded contract log as the indexer stores it (`chain_logs`) and applies it, discriminated
 * by `kind`. Arguments are kept as strings so the same shape round-trips through jsonb for
 * replays after a reorg.
 *
 * @example
 * if (log.kind === "Transfer") log.args.to // "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
 */
export type StoredLog = { [N in IndexedEventName]: StoredLogOf<N> }[IndexedEventName];
