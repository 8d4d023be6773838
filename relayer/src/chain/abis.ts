import { Interface } from "ethers";

/**
 * The parts of the agreed contract ABI (contracts/interfaces/*.sol) the relayer calls or decodes,
 * as human-readable fragments, so the relayer does not depend on generated artifacts at runtime.
 * Errors of OpenZeppelin bases are included so reverts from them decode too.
 */
const ASSET_TOKEN_FRAGMENTS = [
  "function mint(string assetType, (bytes32 digest, uint8 version, uint64 codec, uint16 hashCode) cid, bytes32 passwordHash) payable returns (uint256)",
  "function safeTransferFrom(address from, address to, uint256 tokenId)",
  "function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)",
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function MIN_STAKE() view returns (uint256)",
  "event AssetIssued(uint256 indexed tokenId, address indexed owner, bytes32 indexed typeId, uint256 stake, bytes32 cidDigest, uint8 cidVersion, uint64 cidCodec, uint16 cidHashCode, bytes32 passwordHash, address minter)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
  "error AssetToken__BelowMinStake(uint256 value, uint256 minStake)",
  "error AssetToken__StakeTooLarge(uint256 value)",
  "error AssetToken__UnknownAssetType(string assetType)",
  "error AssetToken__InvalidCid()",
  "error AssetToken__NotTokenOwner(uint256 tokenId, address caller)",
  "error AssetToken__StakeTransferFailed(address to, uint256 amount)",
  "error AssetToken__NonexistentToken(uint256 tokenId)",
  "error AssetToken__ZeroAddress()",
  "error ERC721InvalidOwner(address owner)",
  "error ERC721NonexistentToken(uint256 tokenId)",
  "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
  "error ERC721InvalidSender(address sender)",
  "error ERC721InvalidReceiver(address receiver)",
  "error ERC721InsufficientApproval(address operator, uint256 tokenId)",
  "error ERC721InvalidApprover(address approver)",
  "error ERC721InvalidOperator(address operator)",
] as const;

const REGISTRY_FRAGMENTS = [
  "function registerType(string name) returns (bytes32)",
  "function isRegistered(string name) view returns (bool)",
  "function allTypes() view returns (string[])",
  "function REGISTRAR_ROLE() view returns (bytes32)",
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "event AssetTypeRegistered(bytes32 indexed typeId, uint32 indexed index, string name, address indexed registrar)",
  "error AssetTypeRegistry__EmptyName()",
  "error AssetTypeRegistry__NameTooLong(uint256 length, uint256 maxLength)",
  "error AssetTypeRegistry__AlreadyRegistered(string name)",
  "error AssetTypeRegistry__UnknownType(bytes32 typeId)",
  "error AssetTypeRegistry__IndexOutOfRange(uint256 index)",
  "error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)",
  "error AccessControlBadConfirmation()",
] as const;

const MARKETPLACE_FRAGMENTS = [
  "function buy(uint256 listingId, uint256 maxPrice) payable",
  "function delist(uint256 listingId)",
  "function getListing(uint256 listingId) view returns ((address seller, uint40 listedAt, uint40 expiresAt, uint8 state, address buyer, uint256 tokenId, uint256 price))",
  "function stateOf(uint256 listingId) view returns (uint8)",
  "function MAX_DURATION_DAYS() view returns (uint256)",
  "event ListingCreated(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller, uint256 price, uint40 expiresAt)",
  "event ListingSold(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller, address buyer, uint256 price)",
  "event ListingCancelled(uint256 indexed listingId, uint256 indexed tokenId, address indexed seller)",
  "error Marketplace__ListingNotActive(uint256 listingId)",
  "error Marketplace__PriceAboveMax(uint256 price, uint256 maxPrice)",
  "error Marketplace__InsufficientPayment(uint256 value, uint256 price)",
  "error Marketplace__NotSeller(uint256 listingId, address caller)",
  "error Marketplace__SellerCannotBuy(uint256 listingId)",
  "error Marketplace__ZeroPrice()",
  "error Marketplace__InvalidDuration(uint256 durationDays)",
  "error Marketplace__UnsupportedToken(address token)",
  "error Marketplace__NotExpired(uint256 listingId, uint256 expiresAt)",
  "error Marketplace__PaymentFailed(address to, uint256 amount)",
  "error Marketplace__NothingToWithdraw()",
  "error Marketplace__InvalidListingData()",
  "error ReentrancyGuardReentrantCall()",
] as const;

/** AssetToken calls, events and errors. */
export const assetTokenInterface = new Interface(ASSET_TOKEN_FRAGMENTS);
/** AssetTypeRegistry calls, events and errors. */
export const registryInterface = new Interface(REGISTRY_FRAGMENTS);
/** Marketplace calls, events and errors. */
export const marketplaceInterface = new Interface(MARKETPLACE_FRAGMENTS);

/** Every error and event of the three contracts, for decoding reverts and receipt logs. */
export const combinedInterface = new Interface(
  [...new Set([...ASSET_TOKEN_FRAGMENTS, ...REGISTRY_FRAGMENTS, ...MARKETPLACE_FRAGMENTS])].filter(
    (fragment) => !fragment.startsWith("function"),
  ),
);

/** `IMarketplace.ListingState` as numbers. */
export const LISTING_STATE = { None: 0, Active: 1, Sold: 2, Cancelled: 3, Expired: 4 } as const;
