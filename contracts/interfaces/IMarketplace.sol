// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IMarketplace
/// @notice Escrow marketplace for AssetToken. Listing moves the token into this contract: either
/// `safeTransferFrom(owner, marketplace, tokenId, abi.encode(price, durationDays))` on the token
/// (one transaction, no approval) or `list` after an approval. Sale proceeds are pushed to the
/// seller; when that push fails they are credited and can be withdrawn. A token that arrives
/// without a listing (a plain `transferFrom`) can be returned by an operator with `rescueToken`.
interface IMarketplace {
    /// @notice Listing state. `Expired` is reported for an active listing whose time has passed, and stored once reclaimed.
    enum ListingState {
        None,
        Active,
        Sold,
        Cancelled,
        Expired
    }

    /// @notice A listing as stored.
    struct Listing {
        address seller;
        uint40 listedAt;
        uint40 expiresAt;
        ListingState state;
        address buyer;
        uint256 tokenId;
        uint256 price;
    }

    /// @notice Thrown when a listing is not active (none, sold, cancelled or expired). Surfaced by the API as `Listing not active`.
    error Marketplace__ListingNotActive(uint256 listingId);
    /// @notice Thrown when the current price exceeds the buyer's maximum.
    error Marketplace__PriceAboveMax(uint256 price, uint256 maxPrice);
    /// @notice Thrown when the value sent is below the price.
    error Marketplace__InsufficientPayment(uint256 value, uint256 price);
    /// @notice Thrown when the caller is not the listing's seller.
    error Marketplace__NotSeller(uint256 listingId, address caller);
    /// @notice Thrown when the seller tries to buy their own listing.
    error Marketplace__SellerCannotBuy(uint256 listingId);
    /// @notice Thrown when a price is zero.
    error Marketplace__ZeroPrice();
    /// @notice Thrown when a duration is 0 or above `MAX_DURATION_DAYS`.
    error Marketplace__InvalidDuration(uint256 durationDays);
    /// @notice Thrown when a token other than the configured AssetToken is sent here.
    error Marketplace__UnsupportedToken(address token);
    /// @notice Thrown when `reclaim` is called on a listing that has not expired yet.
    error Marketplace__NotExpired(uint256 listingId, uint256 expiresAt);
    /// @notice Thrown when a native coin transfer (refund or withdrawal) fails.
    error Marketplace__PaymentFailed(address to, uint256 amount);
    /// @notice Thrown when there is nothing to withdraw.
    error Marketplace__NothingToWithdraw();
    /// @notice Thrown when a token arrives through `onERC721Received` without a valid
    /// `abi.encode(uint256 price, uint256 durationDays)` payload (empty or malformed data, or a mint straight into escrow).
    /// @dev Added after the first ABI round; purely additive.
    error Marketplace__InvalidListingData();
    /// @notice Thrown when `rescueToken` is asked for a token that backs a listing still stored as
    /// active (an expired listing included: its seller can still reclaim it).
    error Marketplace__TokenListed(uint256 tokenId, uint256 listingId);
    /// @notice Thrown when the constructor is given the zero address as admin.
    error Marketplace__ZeroAdmin();
    /// @notice Thrown when `rescueToken` is asked for a token this contract does not hold.
    error Marketplace__TokenNotHeld(uint256 tokenId);
    /// @notice Thrown when anyone but the token contract calls `releaseForForcedTransfer`.
    error Marketplace__OnlyToken(address caller);

    /// @notice Emitted when a listing is created.
    event ListingCreated(
        uint256 indexed listingId,
        uint256 indexed tokenId,
        address indexed seller,
        uint256 price,
        uint40 expiresAt
    );
    /// @notice Emitted when the seller changes the price of an active listing.
    event ListingPriceUpdated(
        uint256 indexed listingId,
        uint256 indexed tokenId,
        address indexed seller,
        uint256 oldPrice,
        uint256 newPrice
    );
    /// @notice Emitted when a listing is bought.
    event ListingSold(
        uint256 indexed listingId,
        uint256 indexed tokenId,
        address indexed seller,
        address buyer,
        uint256 price
    );
    /// @notice Emitted when the seller cancels an active listing; the token is returned.
    event ListingCancelled(
        uint256 indexed listingId,
        uint256 indexed tokenId,
        address indexed seller
    );
    /// @notice Emitted when the seller takes back the token of an expired listing.
    event ListingReclaimed(
        uint256 indexed listingId,
        uint256 indexed tokenId,
        address indexed seller
    );
    /// @notice Emitted when an operator returned a token held here without a listing.
    event TokenRescued(uint256 indexed tokenId, address indexed to, address indexed operator);
    /// @notice Emitted when a push payment to a seller failed and the amount was credited instead.
    event ProceedsCredited(address indexed seller, uint256 amount);
    /// @notice Emitted when credited proceeds are withdrawn.
    event ProceedsWithdrawn(address indexed seller, uint256 amount);

    /// @notice Default listing duration in days (30).
    function DEFAULT_DURATION_DAYS() external view returns (uint256);
    /// @notice Maximum listing duration in days (365).
    function MAX_DURATION_DAYS() external view returns (uint256);
    /// @notice The AssetToken this marketplace trades.
    function token() external view returns (address);
    /// @notice Role allowed to call `rescueToken` (held by the deploy's admin).
    function OPERATOR_ROLE() external view returns (bytes32);

    /// @notice Lists a token the caller owns (needs approval of this contract). `durationDays` 0 is rejected; pass 30 for the default.
    function list(
        uint256 tokenId,
        uint256 price,
        uint256 durationDays
    ) external returns (uint256 listingId);
    /// @notice Changes the price of an active listing. Seller only.
    function updatePrice(uint256 listingId, uint256 newPrice) external;
    /// @notice Buys an active listing; reverts when its price exceeds `maxPrice`; refunds value above the price.
    function buy(uint256 listingId, uint256 maxPrice) external payable;
    /// @notice Cancels an active listing and returns the token. Seller only.
    function delist(uint256 listingId) external;
    /// @notice Returns the token of an expired listing to its seller. Seller only.
    function reclaim(uint256 listingId) external;
    /// @notice Withdraws proceeds credited after a failed push payment.
    function withdrawProceeds() external;
    /// @notice Sends a token this contract holds without an active listing (one that arrived by a
    /// plain `transferFrom`, which creates no listing) to `to`. Never a token backing a listing
    /// stored as active, expired or not. `OPERATOR_ROLE` only.
    /// @param tokenId the stranded token
    /// @param to the account the operator names (not zero, not this contract)
    function rescueToken(uint256 tokenId, address to) external;

    /// @notice Ends the token's listing stored as active (expired or not), if any, as cancelled
    /// (`ListingCancelled`), without moving the token: the token contract is about to force it
    /// elsewhere. Only the token contract may call it.
    function releaseForForcedTransfer(uint256 tokenId) external;

    /// @notice The stored listing.
    function getListing(uint256 listingId) external view returns (Listing memory);
    /// @notice Effective state (an active listing past `expiresAt` reads as Expired).
    function stateOf(uint256 listingId) external view returns (ListingState);
    /// @notice Proceeds credited to `seller` and not yet withdrawn.
    function proceedsOf(address seller) external view returns (uint256);
    /// @notice Sum of all credited, unwithdrawn proceeds (equals this contract's balance).
    function totalProceeds() external view returns (uint256);
    /// @notice Id the next listing will get.
    function nextListingId() external view returns (uint256);
    /// @notice The listing stored as active (possibly expired) that holds `tokenId` in escrow, or 0.
    function activeListingOf(uint256 tokenId) external view returns (uint256 listingId);
    /// @notice The seller of the latest listing created for `tokenId` (zero if never listed). The
    /// token lets a frozen token, or any token while paused, go back to this address from escrow.
    function lastSellerOf(uint256 tokenId) external view returns (address seller);
}
