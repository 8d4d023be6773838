import type { AssetToken } from "../../../../typechain-types/AssetToken.js";
import type { AssetTypeRegistry } from "../../../../typechain-types/AssetTypeRegistry.js";
import type { TypedContractEvent } from "../../../../typechain-types/common.js";
import type { Marketplace } from "../../../../typechain-types/Marketplace.js";

/**
 * The events of the project's contracts as one discriminated union, derived from the TypeChain
 * types (`typechain-types/`): nothing here is written by hand but the list of names that checks
 * it. Receipts (`receipt-events.ts`), the indexer (`indexer/stored-log.ts`, `apply-log.ts`) and
 * the webhook events (`indexer/webhook-events.ts`) switch over it exhaustively, so an event added
 * to a contract is a type error in each of them until it is handled or deliberately ignored.
 * See docs/architecture.md ("Modules and what each may import", `chain/`).
 */

/** ERC-4906's `_tokenId`, `_fromTokenId`, `_toTokenId` read as `tokenId`, ... (as decoded). */
type WithoutLeadingUnderscore<T> = {
  [K in keyof T as K extends `_${infer Rest}` ? Rest : K]: T[K];
};

/**
 * One contract's event names: its `filters` are keyed by name and by signature (`Transfer` and
 * `Transfer(address,address,uint256)`); the names are kept.
 */
type EventNamesOf<C extends { filters: object }> = Exclude<
  keyof C["filters"] & string,
  `${string}(${string}`
>;

/** One contract's events as union members, their arguments from TypeChain's `OutputObject`. */
type EventsOf<C extends { filters: object }> = {
  [N in EventNamesOf<C>]: C["filters"][N] extends TypedContractEvent<
    infer _Input,
    infer _Output,
    infer Args
  >
    ? DecodedEventOf<N, WithoutLeadingUnderscore<Args>>
    : never;
}[EventNamesOf<C>];

interface DecodedEventOf<N extends string, A> {
  name: N;
  /** Arguments by name; a leading `_` (ERC-4906's `_tokenId`) is dropped. */
  args: A;
  /** The ABI type of each argument (`uint256`, `address`, `string`...), same keys. */
  types: Readonly<Record<keyof A, string>>;
}

/**
 * A decoded event of AssetToken, Marketplace or AssetTypeRegistry (inherited OpenZeppelin ones
 * included), discriminated by `name`.
 *
 * @example
 * if (event.name === "AssetIssued") event.args.tokenId // bigint
 */
export type ContractEvent =
  | EventsOf<AssetToken>
  | EventsOf<Marketplace>
  | EventsOf<AssetTypeRegistry>;

/** Names of the events the three contracts can emit. */
export type ContractEventName = ContractEvent["name"];

/** The decoded arguments of the event `N` (`ContractEventArgs<"Transfer">["tokenId"]` is a bigint). */
export type ContractEventArgs<N extends ContractEventName> = Extract<
  ContractEvent,
  { name: N }
>["args"];

/**
 * Every member of the union, once: a missing or unknown name here is a type error, and
 * test/unit/contract-events.test.ts compares the list with the compiled ABIs, so an event the
 * union lacks (stale `typechain-types/`, an overloaded event name) fails a test.
 */
const NAMES = {
  // AssetToken
  Approval: true,
  ApprovalForAll: true,
  AssetIssued: true,
  AssetRedeemed: true,
  BaseURIUpdated: true,
  BatchMetadataUpdate: true,
  MetadataUpdate: true,
  Transfer: true,
  // AssetToken compliance (ERC-7943, OpenZeppelin Pausable and ours)
  Frozen: true,
  ForcedTransfer: true,
  Paused: true,
  Unpaused: true,
  AssetFrozen: true,
  AssetUnfrozen: true,
  AssetForcedTransfer: true,
  MarketPaused: true,
  MarketResumed: true,
  AssetTypeRestrictionSet: true,
  AllowlistUpdated: true,
  MarketplaceSet: true,
  // Marketplace
  ListingCreated: true,
  ListingPriceUpdated: true,
  ListingSold: true,
  ListingCancelled: true,
  ListingReclaimed: true,
  ProceedsCredited: true,
  ProceedsWithdrawn: true,
  TokenRescued: true,
  // AssetTypeRegistry
  AssetTypeRegistered: true,
  // all three (AccessControl)
  RoleAdminChanged: true,
  RoleGranted: true,
  RoleRevoked: true,
} as const satisfies Record<ContractEventName, true>;

/** The names of every member of `ContractEvent`. */
export const CONTRACT_EVENT_NAMES = Object.keys(NAMES) as readonly ContractEventName[];

const KNOWN = new Set<string>(CONTRACT_EVENT_NAMES);

/** Whether `name` names a member of `ContractEvent` (what the decoder checks before it answers). */
export function isContractEventName(name: string): name is ContractEventName {
  return KNOWN.has(name);
}
