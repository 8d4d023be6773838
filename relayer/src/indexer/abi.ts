import { Interface } from "ethers";

/**
 * The events the indexer reads, copied from `contracts/interfaces/*.sol` (plus ERC-721 Transfer
 * and ERC-4906). One Interface covers all three contracts: topic0 tells the events apart.
 */
export const INDEXED_EVENTS_ABI = [
  "event AssetTypeRegistered(bytes32 indexed typeId, uint32 indexed index, string name, address indexed registrar)",
  "event AssetIssued(uint256 indexed tokenId, address indexed owner, bytes32 indexed typeId, uint256 stake, bytes32 cidDigest, uint8 cidVersion, uint64 cidCodec, uint16 cidHashCode, bytes32 passwordHash, address minter)",
  "event AssetRedeemed(uint256 indexed tokenId, address indexed owner, uint256 stake)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
  "event MetadataUpdate(uint256 _tokenId)",
  "event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId)",
  "event ListingCreated(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller, uint256 price, uint40 expiresAt)",
  "event ListingPriceUpdated(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller, uint256 oldPrice, uint256 newPrice)",
  "event ListingSold(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller, address buyer, uint256 price)",
  "event ListingCancelled(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller)",
  "event ListingReclaimed(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller)",
] as const;

/** Decoder for every indexed event. */
export const indexedEventsInterface = new Interface(INDEXED_EVENTS_ABI);

/** topic0 of every indexed event (the `topics[0]` filter of eth_getLogs). */
export const INDEXED_TOPICS: string[] = [];
indexedEventsInterface.forEachEvent((event) => INDEXED_TOPICS.push(event.topicHash));

/** Names of the indexed events. */
export type IndexedEventName =
  | "AssetTypeRegistered"
  | "AssetIssued"
  | "AssetRedeemed"
  | "Transfer"
  | "MetadataUpdate"
  | "BatchMetadataUpdate"
  | "ListingCreated"
  | "ListingPriceUpdated"
  | "ListingSold"
  | "ListingCancelled"
  | "ListingReclaimed";
