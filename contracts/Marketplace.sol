// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IMarketplace} from "./interfaces/IMarketplace.sol";

/// @title Marketplace
/// @notice Fixed-price escrow marketplace for one AssetToken contract. A listed token sits in this
/// contract until it is bought, delisted, or reclaimed after expiry.
/// @dev Every state-changing entry point is `nonReentrant` and follows checks-effects-interactions:
/// the listing's state is final before any token or coin moves.
///
/// Token movements: a buyer receives the token with `safeTransferFrom`, so a contract buyer that
/// cannot hold ERC-721 tokens makes the purchase revert instead of losing the token (its
/// `onERC721Received` runs after the listing is already `Sold` and cannot re-enter). A seller gets
/// a token back (delist, reclaim) with `transferFrom`: the seller held it before, and a receiver
/// hook must not be able to block the return.
///
/// Coins: the seller is paid by a push with a bounded gas allowance; if that fails the amount is
/// credited (`proceedsOf`) and withdrawable. Value above the price is refunded to the buyer. The
/// contract has no receive or fallback, so its balance always equals `totalProceeds()`.
///
/// Rescue: a token moved here with a plain `transferFrom` skips `onERC721Received`, so no listing
/// exists for it. `rescueToken` lets an `OPERATOR_ROLE` holder send such a token where it belongs.
/// Each token's latest listing id is kept so rescue can prove the token backs no active listing.
contract Marketplace is IMarketplace, IERC721Receiver, ReentrancyGuard, AccessControl {
    /// @inheritdoc IMarketplace
    uint256 public constant DEFAULT_DURATION_DAYS = 30;
    /// @inheritdoc IMarketplace
    uint256 public constant MAX_DURATION_DAYS = 365;
    /// @inheritdoc IMarketplace
    bytes32 public constant OPERATOR_ROLE = keccak256("OPERATOR_ROLE");

    /// @dev Gas forwarded with the push payment to a seller: enough for a smart wallet's receive
    /// hook, too little for a seller to grief the buyer's transaction.
    uint256 private constant _SELLER_PAYOUT_GAS = 50_000;

    IERC721 private immutable _token;

    uint256 private _nextListingId;
    uint256 private _totalProceeds;

    mapping(uint256 listingId => Listing) private _listings;
    mapping(address seller => uint256) private _proceeds;
    /// @dev The latest listing created for each token (0 if never listed); its state tells whether
    /// the token is in escrow for it. Never cleared: a relisting then rewrites a non-zero slot.
    mapping(uint256 tokenId => uint256 listingId) private _latestListingOf;

    /// @param assetToken the AssetToken contract this marketplace trades
    /// @param admin account granted `DEFAULT_ADMIN_ROLE` and `OPERATOR_ROLE` (may rescue tokens)
    constructor(address assetToken, address admin) {
        if (assetToken == address(0)) revert Marketplace__UnsupportedToken(assetToken);
        if (admin == address(0)) revert Marketplace__ZeroAdmin();
        _token = IERC721(assetToken);
        _nextListingId = 1;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(OPERATOR_ROLE, admin);
    }

    // ---------------------------------------------------------------- listing

    /// @notice Creates a listing for a token sent with
    /// `safeTransferFrom(owner, marketplace, tokenId, abi.encode(uint256 price, uint256 durationDays))`.
    /// The seller is `from`, the token's previous owner.
    /// @inheritdoc IERC721Receiver
    function onERC721Received(
        address,
        address from,
        uint256 tokenId,
        bytes calldata data
    ) external nonReentrant returns (bytes4) {
        if (msg.sender != address(_token)) revert Marketplace__UnsupportedToken(msg.sender);
        // Exactly two static words; a mint straight into escrow (from == 0) has no seller.
        if (data.length != 64 || from == address(0)) revert Marketplace__InvalidListingData();
        (uint256 price, uint256 durationDays) = abi.decode(data, (uint256, uint256));
        _createListing(from, tokenId, price, durationDays);
        return IERC721Receiver.onERC721Received.selector;
    }

    /// @inheritdoc IMarketplace
    function list(
        uint256 tokenId,
        uint256 price,
        uint256 durationDays
    ) external nonReentrant returns (uint256 listingId) {
        listingId = _createListing(msg.sender, tokenId, price, durationDays);
        // Reverts unless the caller owns the token and approved this contract.
        _token.transferFrom(msg.sender, address(this), tokenId);
    }

    /// @inheritdoc IMarketplace
    function updatePrice(uint256 listingId, uint256 newPrice) external nonReentrant {
        Listing storage listing = _activeListing(listingId);
        if (listing.seller != msg.sender) revert Marketplace__NotSeller(listingId, msg.sender);
        if (newPrice == 0) revert Marketplace__ZeroPrice();
        uint256 oldPrice = listing.price;
        listing.price = newPrice;
        emit ListingPriceUpdated(listingId, listing.tokenId, msg.sender, oldPrice, newPrice);
    }

    // ---------------------------------------------------------------- settlement

    /// @inheritdoc IMarketplace
    function buy(uint256 listingId, uint256 maxPrice) external payable nonReentrant {
        Listing storage listing = _activeListing(listingId);
        address seller = listing.seller;
        uint256 price = listing.price;
        uint256 tokenId = listing.tokenId;
        if (msg.sender == seller) revert Marketplace__SellerCannotBuy(listingId);
        if (price > maxPrice) revert Marketplace__PriceAboveMax(price, maxPrice);
        if (msg.value < price) revert Marketplace__InsufficientPayment(msg.value, price);

        // Effects.
        listing.state = ListingState.Sold;
        listing.buyer = msg.sender;
        emit ListingSold(listingId, tokenId, seller, msg.sender, price);

        // Interactions.
        _token.safeTransferFrom(address(this), msg.sender, tokenId);
        _paySeller(seller, price);
        uint256 excess;
        unchecked {
            // msg.value >= price was checked above.
            excess = msg.value - price;
        }
        if (excess != 0) _sendValue(msg.sender, excess);
    }

    /// @inheritdoc IMarketplace
    function delist(uint256 listingId) external nonReentrant {
        Listing storage listing = _activeListing(listingId);
        address seller = listing.seller;
        if (seller != msg.sender) revert Marketplace__NotSeller(listingId, msg.sender);
        listing.state = ListingState.Cancelled;
        uint256 tokenId = listing.tokenId;
        emit ListingCancelled(listingId, tokenId, seller);
        _token.transferFrom(address(this), seller, tokenId);
    }

    /// @inheritdoc IMarketplace
    function reclaim(uint256 listingId) external nonReentrant {
        Listing storage listing = _listings[listingId];
        if (listing.state != ListingState.Active) revert Marketplace__ListingNotActive(listingId);
        address seller = listing.seller;
        if (seller != msg.sender) revert Marketplace__NotSeller(listingId, msg.sender);
        uint256 expiresAt = listing.expiresAt;
        if (block.timestamp < expiresAt) revert Marketplace__NotExpired(listingId, expiresAt);
        listing.state = ListingState.Expired;
        uint256 tokenId = listing.tokenId;
        emit ListingReclaimed(listingId, tokenId, seller);
        _token.transferFrom(address(this), seller, tokenId);
    }

    /// @inheritdoc IMarketplace
    function withdrawProceeds() external nonReentrant {
        uint256 amount = _proceeds[msg.sender];
        if (amount == 0) revert Marketplace__NothingToWithdraw();
        _proceeds[msg.sender] = 0;
        unchecked {
            // amount is part of the total: every credit adds to both.
            _totalProceeds -= amount;
        }
        emit ProceedsWithdrawn(msg.sender, amount);
        _sendValue(msg.sender, amount);
    }

    // ---------------------------------------------------------------- operator

    /// @inheritdoc IMarketplace
    function rescueToken(
        uint256 tokenId,
        address to
    ) external nonReentrant onlyRole(OPERATOR_ROLE) {
        if (to == address(0) || to == address(this)) revert IERC721Errors.ERC721InvalidReceiver(to);
        uint256 listingId = _activeListingOf(tokenId);
        if (listingId != 0) revert Marketplace__TokenListed(tokenId, listingId);
        if (_token.ownerOf(tokenId) != address(this)) revert Marketplace__TokenNotHeld(tokenId);
        emit TokenRescued(tokenId, to, msg.sender);
        // transferFrom, as for a seller's return: a receiver hook must not be able to refuse it.
        _token.transferFrom(address(this), to, tokenId);
    }

    /// @inheritdoc IMarketplace
    function releaseForForcedTransfer(uint256 tokenId) external nonReentrant {
        if (msg.sender != address(_token)) revert Marketplace__OnlyToken(msg.sender);
        uint256 listingId = _activeListingOf(tokenId);
        if (listingId == 0) return;
        Listing storage listing = _listings[listingId];
        listing.state = ListingState.Cancelled;
        emit ListingCancelled(listingId, tokenId, listing.seller);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IMarketplace
    function token() external view returns (address) {
        return address(_token);
    }

    /// @inheritdoc IMarketplace
    function getListing(uint256 listingId) external view returns (Listing memory) {
        return _listings[listingId];
    }

    /// @inheritdoc IMarketplace
    /// @dev A listing expires at `expiresAt` exactly: from that second on it can no longer be
    /// bought, updated or delisted, only reclaimed.
    function stateOf(uint256 listingId) external view returns (ListingState) {
        Listing storage listing = _listings[listingId];
        ListingState state = listing.state;
        if (state == ListingState.Active && block.timestamp >= listing.expiresAt)
            return ListingState.Expired;
        return state;
    }

    /// @inheritdoc IMarketplace
    function proceedsOf(address seller) external view returns (uint256) {
        return _proceeds[seller];
    }

    /// @inheritdoc IMarketplace
    function totalProceeds() external view returns (uint256) {
        return _totalProceeds;
    }

    /// @inheritdoc IMarketplace
    function nextListingId() external view returns (uint256) {
        return _nextListingId;
    }

    /// @inheritdoc IMarketplace
    function activeListingOf(uint256 tokenId) external view returns (uint256) {
        return _activeListingOf(tokenId);
    }

    /// @inheritdoc IMarketplace
    function lastSellerOf(uint256 tokenId) external view returns (address) {
        return _listings[_latestListingOf[tokenId]].seller;
    }

    // ---------------------------------------------------------------- internals

    /// @dev Validates the terms and stores a new active listing; the caller moves the token.
    function _createListing(
        address seller,
        uint256 tokenId,
        uint256 price,
        uint256 durationDays
    ) private returns (uint256 listingId) {
        if (price == 0) revert Marketplace__ZeroPrice();
        if (durationDays == 0 || durationDays > MAX_DURATION_DAYS)
            revert Marketplace__InvalidDuration(durationDays);
        listingId = _nextListingId;
        uint40 expiresAt;
        unchecked {
            // One id per listing: 2^256 listings cannot happen. durationDays <= 365, and
            // block.timestamp + 365 days fits in uint40 until the year 36812.
            _nextListingId = listingId + 1;
            expiresAt = uint40(block.timestamp + durationDays * 1 days);
        }
        _listings[listingId] = Listing({
            seller: seller,
            listedAt: uint40(block.timestamp),
            expiresAt: expiresAt,
            state: ListingState.Active,
            buyer: address(0),
            tokenId: tokenId,
            price: price
        });
        _latestListingOf[tokenId] = listingId;
        emit ListingCreated(listingId, tokenId, seller, price, expiresAt);
    }

    /// @dev The listing if it is active and not expired; reverts with `Marketplace__ListingNotActive` otherwise.
    function _activeListing(uint256 listingId) private view returns (Listing storage listing) {
        listing = _listings[listingId];
        if (listing.state != ListingState.Active || block.timestamp >= listing.expiresAt) {
            revert Marketplace__ListingNotActive(listingId);
        }
    }

    /// @dev The token's latest listing if its stored state is Active (expired or not), else 0. Only
    /// the latest can be active: a token is escrowed for one listing at a time, and a new listing
    /// needs the token back from the previous one.
    function _activeListingOf(uint256 tokenId) private view returns (uint256 listingId) {
        listingId = _latestListingOf[tokenId];
        if (listingId != 0 && _listings[listingId].state != ListingState.Active) listingId = 0;
    }

    /// @dev Pushes the sale price to the seller; credits it for withdrawal if the push fails.
    function _paySeller(address seller, uint256 amount) private {
        (bool ok, ) = seller.call{value: amount, gas: _SELLER_PAYOUT_GAS}("");
        if (!ok) {
            _proceeds[seller] += amount;
            _totalProceeds += amount;
            emit ProceedsCredited(seller, amount);
        }
    }

    /// @dev Sends coins with all remaining gas; reverts on failure.
    function _sendValue(address to, uint256 amount) private {
        (bool ok, ) = to.call{value: amount}("");
        if (!ok) revert Marketplace__PaymentFailed(to, amount);
    }
}
