// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IMarketplace} from "../../contracts/interfaces/IMarketplace.sol";
import {SystemTest} from "./utils/Deployer.sol";
import {AssetToken} from "../../contracts/AssetToken.sol";
import {Marketplace} from "../../contracts/Marketplace.sol";
import {IAssetToken} from "../../contracts/interfaces/IAssetToken.sol";
import {ActorMock} from "../../contracts/test/ActorMock.sol";
import {TestBase} from "./utils/TestBase.sol";

/// @title MarketHandler
/// @notice Drives random sequences of mint, transfer, list (both ways), updatePrice, buy, delist,
/// reclaim, redeem, withdrawProceeds, stray transfers into the marketplace (plain transferFrom),
/// operator rescues of any escrowed token and time warps across three EOAs and one smart account
/// that can refuse coins, keeping ghost variables for the invariant test. The handler holds the
/// marketplace's OPERATOR_ROLE and the token's enforcer and pauser roles: it also freezes,
/// unfreezes, forces transfers, pauses, resumes and allowlists actors, and mints a restricted
/// type beside an unrestricted one. Every action compares each token's holder before and after
/// it, so a move the compliance rules forbid is recorded even when no later state shows it.
contract MarketHandler is TestBase {
    uint256 private constant MIN_STAKE = 0.1 ether;
    /// @notice The type the invariant test marks restricted before any mint.
    string public constant RESTRICTED_TYPE = "Carbon Credit";

    /// @dev Which holder changes an action may make to a frozen token or while paused: a return
    /// from escrow to the token's last seller (delist, reclaim, a rescue to that seller) or any
    /// forced transfer.
    enum Exemption {
        None,
        ReturnToSeller,
        Forced
    }

    AssetToken public immutable token;
    Marketplace public immutable market;
    ActorMock public immutable smartAccount;

    address[] private _actors;
    uint256[] private _tokenIds;

    uint256 public ghostMinted;
    uint256 public ghostRedeemed;
    uint256 public ghostLiveStake;
    uint256 public ghostSales;
    uint256 public ghostCredits;
    /// @notice Set if a buyer's balance ever dropped by more than the maxPrice it passed.
    bool public ghostBuyerOverpaid;
    /// @notice Set if a buyer ever paid something other than the listing price.
    bool public ghostBuyerPaidWrongAmount;
    /// @notice Tokens sent to the marketplace without a listing and not rescued yet.
    uint256 public ghostStrayHeld;
    /// @notice Set if a rescue ever succeeded for a token backing a listing stored as active.
    bool public ghostRescuedListedToken;
    /// @notice Set if a rescue of a token held without a listing ever failed.
    bool public ghostStrayRescueFailed;
    uint256 public ghostRescues;
    /// @notice Set if a frozen token ever changed hands other than by a forced transfer or a
    /// return from escrow to its seller.
    bool public ghostFrozenTokenMoved;
    /// @notice Set if anything was minted, moved or redeemed while paused, other than by a forced
    /// transfer or a return from escrow to the seller.
    bool public ghostMovedWhilePaused;
    uint256 public ghostFreezes;
    uint256 public ghostForcedTransfers;
    uint256 public ghostPausedCalls;

    constructor(AssetToken token_, Marketplace market_) {
        token = token_;
        market = market_;
        smartAccount = new ActorMock();
        _actors.push(address(0xA11CE));
        _actors.push(address(0xB0B));
        _actors.push(address(0xCA401));
        _actors.push(address(smartAccount));
    }

    // ---------------------------------------------------------------- actions

    function mint(
        uint256 actorSeed,
        uint256 stakeSeed,
        bytes32 digest,
        bool withPassword
    ) external tracked(Exemption.None) {
        address actor = _actor(actorSeed);
        uint256 stake = bound(stakeSeed, MIN_STAKE, 1_000 ether);
        if (digest == bytes32(0)) digest = keccak256("digest");
        vm.deal(actor, actor.balance + stake);
        vm.prank(actor);
        uint256 tokenId = token.mint{value: stake}(
            stakeSeed % 3 == 2 ? RESTRICTED_TYPE : "Real Estate",
            IAssetToken.Cid({digest: digest, version: 1, codec: 0x55, hashCode: 0x12}),
            withPassword ? keccak256(abi.encode(digest)) : bytes32(0)
        );
        _tokenIds.push(tokenId);
        ++ghostMinted;
        ghostLiveStake += stake;
    }

    function transfer(uint256 tokenSeed, uint256 toSeed) external tracked(Exemption.None) {
        (uint256 tokenId, address owner) = _heldToken(tokenSeed);
        if (owner == address(0)) return;
        vm.prank(owner);
        token.transferFrom(owner, _actor(toSeed), tokenId);
    }

    function list(
        uint256 tokenSeed,
        uint256 priceSeed,
        uint256 daysSeed,
        bool viaSafeTransfer
    ) external tracked(Exemption.None) {
        (uint256 tokenId, address owner) = _heldToken(tokenSeed);
        if (owner == address(0)) return;
        uint256 price = bound(priceSeed, 1, 100 ether);
        uint256 durationDays = bound(daysSeed, 1, 365);
        if (viaSafeTransfer) {
            vm.prank(owner);
            token.safeTransferFrom(
                owner,
                address(market),
                tokenId,
                abi.encode(price, durationDays)
            );
        } else {
            // One prank per call: a startPrank left open by a reverting `list` (paused, frozen)
            // would make the handler's later calls come from `owner`.
            vm.prank(owner);
            token.approve(address(market), tokenId);
            vm.prank(owner);
            market.list(tokenId, price, durationDays);
        }
    }

    function updatePrice(uint256 listingSeed, uint256 priceSeed) external {
        uint256 listingId = _listing(listingSeed);
        if (listingId == 0) return;
        vm.prank(market.getListing(listingId).seller);
        market.updatePrice(listingId, bound(priceSeed, 1, 100 ether));
    }

    function buy(
        uint256 actorSeed,
        uint256 listingSeed,
        uint256 maxSeed,
        uint256 valueSeed
    ) external tracked(Exemption.None) {
        uint256 listingId = _listing(listingSeed);
        if (listingId == 0) return;
        address buyer = _actor(actorSeed);
        uint256 price = market.getListing(listingId).price;
        // Mostly a valid purchase (maxPrice >= price, value >= price, possibly with excess); one in
        // five times a maxPrice or value below the price, so the reverts are exercised too.
        uint256 maxPrice =
            maxSeed % 5 == 0 ? bound(maxSeed, price / 2, price) : bound(maxSeed, price, price * 2);
        uint256 value =
            valueSeed % 5 == 0
                ? bound(valueSeed, price / 2, price)
                : bound(valueSeed, price, price * 3);
        vm.deal(buyer, buyer.balance + value);
        uint256 before = buyer.balance;
        vm.prank(buyer);
        market.buy{value: value}(listingId, maxPrice);
        uint256 paid = before - buyer.balance;
        if (paid > maxPrice) ghostBuyerOverpaid = true;
        if (paid != price) ghostBuyerPaidWrongAmount = true;
        ++ghostSales;
    }

    function delist(uint256 listingSeed) external tracked(Exemption.ReturnToSeller) {
        uint256 listingId = _listing(listingSeed);
        if (listingId == 0) return;
        vm.prank(market.getListing(listingId).seller);
        market.delist(listingId);
    }

    function reclaim(uint256 listingSeed) external tracked(Exemption.ReturnToSeller) {
        uint256 listingId = _listing(listingSeed);
        if (listingId == 0) return;
        vm.prank(market.getListing(listingId).seller);
        market.reclaim(listingId);
    }

    function redeem(uint256 tokenSeed) external tracked(Exemption.None) {
        (uint256 tokenId, address owner) = _heldToken(tokenSeed);
        if (owner == address(0)) return;
        uint256 stake = token.stakeOf(tokenId);
        vm.prank(owner);
        token.redeem(tokenId);
        ++ghostRedeemed;
        ghostLiveStake -= stake;
    }

    function strayTransfer(uint256 tokenSeed) external tracked(Exemption.None) {
        (uint256 tokenId, address owner) = _heldToken(tokenSeed);
        if (owner == address(0)) return;
        vm.prank(owner);
        token.transferFrom(owner, address(market), tokenId);
        ++ghostStrayHeld;
    }

    /// @dev Tries to rescue any token in escrow, listed or not, and records what happened. Whether
    /// it is listed is read from the listings themselves, not from `activeListingOf`.
    function rescue(uint256 tokenSeed, uint256 toSeed) external tracked(Exemption.ReturnToSeller) {
        uint256 count = _tokenIds.length;
        if (count == 0) return;
        uint256 tokenId;
        bool found;
        for (uint256 i = 0; i < count && !found; ++i) {
            tokenId = _tokenIds[(tokenSeed + i) % count];
            try token.ownerOf(tokenId) returns (address o) {
                found = o == address(market);
            } catch {}
        }
        if (!found) return;
        bool listed = _isListed(tokenId);
        address to = _actor(toSeed);
        // A pause, a freeze or a restricted type may refuse the move itself.
        bool movable = token.canTransfer(address(market), to, tokenId);
        try market.rescueToken(tokenId, to) {
            if (listed) ghostRescuedListedToken = true;
            else --ghostStrayHeld;
            ++ghostRescues;
        } catch {
            if (!listed && movable) ghostStrayRescueFailed = true;
        }
    }

    function withdrawProceeds(uint256 actorSeed) external {
        address actor = _actor(actorSeed);
        vm.prank(actor);
        market.withdrawProceeds();
    }

    function freeze(uint256 tokenSeed) external tracked(Exemption.None) {
        uint256 tokenId = _liveToken(tokenSeed);
        if (tokenId == 0) return;
        token.freeze(tokenId, "dispute");
        ++ghostFreezes;
    }

    function unfreeze(uint256 tokenSeed) external tracked(Exemption.None) {
        uint256 tokenId = _liveToken(tokenSeed);
        if (tokenId == 0) return;
        token.unfreeze(tokenId, "resolved");
    }

    function forcedTransfer(uint256 tokenSeed, uint256 toSeed) external tracked(Exemption.Forced) {
        uint256 tokenId = _liveToken(tokenSeed);
        if (tokenId == 0) return;
        address from = token.ownerOf(tokenId);
        bool stray = from == address(market) && !_isListed(tokenId);
        token.forcedTransferWithReason(from, _actor(toSeed), tokenId, "court order");
        if (stray) --ghostStrayHeld;
        ++ghostForcedTransfers;
    }

    function pause() external tracked(Exemption.None) {
        token.pause("incident");
        ++ghostPausedCalls;
    }

    function unpause() external tracked(Exemption.None) {
        token.unpause("incident closed");
    }

    function allow(uint256 actorSeed) external tracked(Exemption.None) {
        token.setAllowed(_actor(actorSeed), true);
    }

    function warp(uint256 secondsSeed) external {
        vm.warp(block.timestamp + bound(secondsSeed, 1, 60 days));
    }

    function toggleSmartAccountCoins() external {
        smartAccount.setAcceptEther(!smartAccount.acceptEther());
    }

    // ---------------------------------------------------------------- views for the invariants

    function actors() external view returns (address[] memory) {
        return _actors;
    }

    function tokenIds() external view returns (uint256[] memory) {
        return _tokenIds;
    }

    // ---------------------------------------------------------------- internals

    /// @dev Runs the action, then flags every holder change the compliance rules forbid.
    modifier tracked(Exemption exemption) {
        uint256 countBefore = _tokenIds.length;
        address[] memory before = new address[](countBefore);
        bool[] memory frozen = new bool[](countBefore);
        for (uint256 i = 0; i < countBefore; ++i) {
            uint256 tokenId = _tokenIds[i];
            before[i] = _holderOf(tokenId);
            frozen[i] = before[i] != address(0) && token.isFrozen(tokenId);
        }
        bool wasPaused = token.paused();
        _;
        if (wasPaused && _tokenIds.length != countBefore) ghostMovedWhilePaused = true;
        for (uint256 i = 0; i < countBefore; ++i) {
            uint256 tokenId = _tokenIds[i];
            address now_ = _holderOf(tokenId);
            if (now_ == before[i]) continue;
            bool exempt =
                exemption == Exemption.Forced ||
                    (exemption == Exemption.ReturnToSeller &&
                        before[i] == address(market) &&
                        now_ == market.lastSellerOf(tokenId));
            if (exempt) continue;
            if (frozen[i]) ghostFrozenTokenMoved = true;
            if (wasPaused) ghostMovedWhilePaused = true;
        }
    }

    /// @dev The holder of `tokenId`, or zero once redeemed.
    function _holderOf(uint256 tokenId) private view returns (address) {
        try token.ownerOf(tokenId) returns (address o) {
            return o;
        } catch {
            return address(0);
        }
    }

    /// @dev A live token (held by anyone, escrow included), or 0 when there is none.
    function _liveToken(uint256 seed) private view returns (uint256) {
        uint256 count = _tokenIds.length;
        for (uint256 i = 0; i < count; ++i) {
            uint256 tokenId = _tokenIds[(seed + i) % count];
            if (_holderOf(tokenId) != address(0)) return tokenId;
        }
        return 0;
    }

    function _actor(uint256 seed) private view returns (address) {
        return _actors[seed % _actors.length];
    }

    /// @dev A live token held by an actor (not in escrow), or owner 0 when there is none.
    function _heldToken(uint256 seed) private view returns (uint256 tokenId, address owner) {
        uint256 count = _tokenIds.length;
        for (uint256 i = 0; i < count; ++i) {
            tokenId = _tokenIds[(seed + i) % count];
            if (token.totalSupply() == 0) break;
            try token.ownerOf(tokenId) returns (address o) {
                if (o != address(market)) return (tokenId, o);
            } catch {}
        }
        return (0, address(0));
    }

    /// @dev Whether some listing stored as Active (possibly expired) holds `tokenId`.
    function _isListed(uint256 tokenId) private view returns (bool) {
        uint256 next = market.nextListingId();
        for (uint256 id = 1; id < next; ++id) {
            IMarketplace.Listing memory listing = market.getListing(id);
            if (listing.tokenId == tokenId && listing.state == IMarketplace.ListingState.Active)
                return true;
        }
        return false;
    }

    /// @dev A listing id whose stored state is Active (possibly expired), or 0.
    function _listing(uint256 seed) private view returns (uint256) {
        uint256 count = market.nextListingId() - 1;
        for (uint256 i = 0; i < count; ++i) {
            uint256 listingId = ((seed + i) % count) + 1;
            if (market.getListing(listingId).state == IMarketplace.ListingState.Active)
                return listingId;
        }
        return 0;
    }
}

/// @notice Invariants of AssetToken + Marketplace under random action sequences (see MarketHandler).
contract MarketInvariantTest is SystemTest {
    MarketHandler internal handler;

    function setUp() public {
        _deploySystem();
        handler = new MarketHandler(token, market);
        vm.label(address(handler), "handler");
        market.grantRole(market.OPERATOR_ROLE(), address(handler));
        token.grantRole(token.ENFORCER_ROLE(), address(handler));
        token.grantRole(token.PAUSER_ROLE(), address(handler));
        token.setTypeRestricted(handler.RESTRICTED_TYPE(), true);
        token.setAllowed(ALICE, true);
        targetContract(address(handler));
        bytes4[] memory selectors = new bytes4[](21);
        selectors[0] = MarketHandler.mint.selector;
        selectors[1] = MarketHandler.mint.selector; // weighted: minting feeds every other action
        selectors[2] = MarketHandler.transfer.selector;
        selectors[3] = MarketHandler.list.selector;
        selectors[4] = MarketHandler.updatePrice.selector;
        selectors[5] = MarketHandler.buy.selector;
        selectors[6] = MarketHandler.delist.selector;
        selectors[7] = MarketHandler.reclaim.selector;
        selectors[8] = MarketHandler.redeem.selector;
        selectors[9] = MarketHandler.withdrawProceeds.selector;
        selectors[10] = MarketHandler.warp.selector;
        selectors[11] = MarketHandler.toggleSmartAccountCoins.selector;
        selectors[12] = MarketHandler.strayTransfer.selector;
        selectors[13] = MarketHandler.rescue.selector;
        selectors[14] = MarketHandler.freeze.selector;
        selectors[15] = MarketHandler.unfreeze.selector;
        selectors[16] = MarketHandler.forcedTransfer.selector;
        selectors[17] = MarketHandler.pause.selector;
        selectors[18] = MarketHandler.unpause.selector;
        selectors[19] = MarketHandler.unpause.selector; // weighted: pauses should not last
        selectors[20] = MarketHandler.allow.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
    }

    /// @notice AssetToken's balance == totalStaked == the sum of the stakes of live tokens.
    function invariant_stakeIsConserved() public view {
        uint256[] memory ids = handler.tokenIds();
        uint256 sum;
        for (uint256 i = 0; i < ids.length; ++i) {
            try token.stakeOf(ids[i]) returns (uint256 stake) {
                sum += stake;
            } catch {}
        }
        assertEq(address(token).balance, token.totalStaked(), "token balance == totalStaked");
        assertEq(sum, token.totalStaked(), "sum of live stakes == totalStaked");
        assertEq(handler.ghostLiveStake(), token.totalStaked(), "ghost live stake == totalStaked");
    }

    /// @notice The marketplace holds exactly the credited proceeds: nothing stranded.
    function invariant_marketplaceHoldsOnlyProceeds() public view {
        assertEq(
            address(market).balance,
            market.totalProceeds(),
            "market balance == totalProceeds"
        );
        address[] memory actors = handler.actors();
        uint256 sum;
        for (uint256 i = 0; i < actors.length; ++i) sum += market.proceedsOf(actors[i]);
        assertEq(sum, market.totalProceeds(), "sum of proceedsOf == totalProceeds");
    }

    /// @notice Every stored-active listing's token is in escrow and is what `activeListingOf`
    /// reports for it; escrow holds nothing else but the stray tokens not yet rescued.
    function invariant_activeListingsAreEscrowed() public view {
        uint256 next = market.nextListingId();
        uint256 active;
        for (uint256 id = 1; id < next; ++id) {
            IMarketplace.Listing memory listing = market.getListing(id);
            if (listing.state == IMarketplace.ListingState.Active) {
                ++active;
                assertEq(
                    token.ownerOf(listing.tokenId),
                    address(market),
                    "active listing's token is escrowed"
                );
                assertEq(market.activeListingOf(listing.tokenId), id, "activeListingOf");
            } else if (listing.state == IMarketplace.ListingState.Sold) {
                assertTrue(listing.buyer != address(0), "sold listing has a buyer");
            }
        }
        assertEq(
            token.balanceOf(address(market)),
            active + handler.ghostStrayHeld(),
            "escrowed tokens == active listings + stray tokens"
        );
    }

    /// @notice No live token is owned by the zero address, and balances add up to the supply.
    function invariant_liveTokensHaveOwners() public view {
        uint256[] memory ids = handler.tokenIds();
        uint256 live;
        for (uint256 i = 0; i < ids.length; ++i) {
            try token.ownerOf(ids[i]) returns (address owner) {
                assertTrue(owner != address(0), "live token owned by zero");
                ++live;
            } catch {}
        }
        assertEq(live, token.totalSupply(), "live tokens == totalSupply");
        address[] memory actors = handler.actors();
        uint256 held = token.balanceOf(address(market));
        for (uint256 i = 0; i < actors.length; ++i) held += token.balanceOf(actors[i]);
        assertEq(held, token.totalSupply(), "balances add up to totalSupply");
    }

    /// @notice Rescue never takes a token backing a listing stored as active (expired or not), and
    /// always returns a token held without one.
    function invariant_rescueNeverTakesAListedToken() public view {
        assertFalse(handler.ghostRescuedListedToken(), "rescue took a listed token");
        assertFalse(handler.ghostStrayRescueFailed(), "rescue of a stray token failed");
    }

    /// @notice A buyer never pays more than its maxPrice, and always exactly the price.
    function invariant_buyerNeverPaysAboveMax() public view {
        assertFalse(handler.ghostBuyerOverpaid(), "buyer paid above maxPrice");
        assertFalse(handler.ghostBuyerPaidWrongAmount(), "buyer paid other than the price");
    }

    /// @notice A frozen token never changes hands except by a forced transfer or a return from
    /// escrow to its seller.
    function invariant_frozenTokenMovesOnlyByForcedTransfer() public view {
        assertFalse(handler.ghostFrozenTokenMoved(), "frozen token moved");
    }

    /// @notice While paused nothing is minted, moved or redeemed, except by a forced transfer or a
    /// return from escrow to the seller.
    function invariant_pauseStopsEveryTransferPath() public view {
        assertFalse(handler.ghostMovedWhilePaused(), "moved while paused");
    }

    /// @notice Every live token of the restricted type is held by an allowlisted address or in
    /// escrow (the allowlist only grows in this run).
    function invariant_restrictedTokenHeldOnlyByAllowlist() public view {
        uint256[] memory ids = handler.tokenIds();
        for (uint256 i = 0; i < ids.length; ++i) {
            try token.ownerOf(ids[i]) returns (address owner) {
                if (keccak256(bytes(token.assetTypeOf(ids[i]))) != keccak256("Carbon Credit"))
                    continue;
                assertTrue(
                    owner == address(market) || token.isAllowed(owner),
                    "restricted token outside the allowlist"
                );
            } catch {}
        }
    }

    /// @notice Token count == minted - redeemed; ids are sequential.
    function invariant_supplyIsMintedMinusRedeemed() public view {
        assertEq(
            token.totalSupply(),
            handler.ghostMinted() - handler.ghostRedeemed(),
            "supply == minted - redeemed"
        );
        assertEq(token.nextTokenId(), handler.ghostMinted() + 1, "next id == minted + 1");
    }

    /// @notice The handler can complete a sale with either listing path (guards against a handler that only ever reverts).
    function test_handler_completesSales() public {
        handler.mint(0, 0, keccak256("a"), true);
        handler.list(0, 1 ether, 30, true);
        handler.buy(1, 0, 1, 1);
        assertEq(handler.ghostSales(), 1, "sale");
        handler.mint(3, 0, keccak256("b"), true);
        handler.list(1, 1 ether, 30, false);
        handler.buy(1, 0, 1, 1);
        assertEq(handler.ghostSales(), 2, "sale2");
    }

    /// @notice The handler's compliance actions take effect (guards against actions that only
    /// ever revert): a freeze blocks a transfer, a forced transfer moves the frozen token, a
    /// pause blocks a mint.
    function test_handler_reachesComplianceActions() public {
        handler.mint(0, 0, keccak256("a"), false); // "Real Estate" to alice
        handler.freeze(0);
        assertEq(handler.ghostFreezes(), 1, "frozen");
        vm.expectRevert();
        handler.transfer(0, 1);
        assertEq(token.ownerOf(1), ALICE, "frozen token stayed");
        handler.forcedTransfer(0, 1);
        assertEq(handler.ghostForcedTransfers(), 1, "forced");
        assertEq(token.ownerOf(1), BOB, "forced to bob");
        assertFalse(token.isFrozen(1), "forced transfer unfroze");
        handler.pause();
        assertTrue(token.paused(), "paused");
        vm.expectRevert();
        handler.mint(0, 0, keccak256("b"), false);
        handler.unpause();
        assertFalse(handler.ghostFrozenTokenMoved(), "no illegal move");
        assertFalse(handler.ghostMovedWhilePaused(), "no move while paused");
    }

    /// @notice The handler's rescue reaches a stray token and is refused for a listed one (guards
    /// against a rescue action that never gets past its early returns).
    function test_handler_rescuesStrayTokensOnly() public {
        handler.mint(0, 0, keccak256("a"), false);
        handler.list(0, 1 ether, 30, true);
        handler.rescue(0, 1);
        assertEq(handler.ghostRescues(), 0, "listed token not rescued");
        assertFalse(handler.ghostRescuedListedToken(), "listed");
        handler.mint(1, 0, keccak256("b"), false);
        handler.strayTransfer(1);
        assertEq(handler.ghostStrayHeld(), 1, "stray held");
        handler.rescue(1, 1);
        assertEq(handler.ghostRescues(), 1, "stray token rescued");
        assertEq(handler.ghostStrayHeld(), 0, "no stray left");
        assertFalse(handler.ghostStrayRescueFailed(), "stray rescue failed");
    }
}
