// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IMarketplace} from "../../contracts/interfaces/IMarketplace.sol";
import {SystemTest} from "./utils/Deployer.sol";

/// @notice Fuzz tests for Marketplace.
contract MarketplaceFuzzTest is SystemTest {
    uint256 private constant MIN_STAKE = 0.1 ether;

    function setUp() public {
        _deploySystem();
    }

    function testFuzz_list_escrowsWithTerms(
        uint256 price,
        uint256 durationDays,
        uint32 start
    ) public {
        price = bound(price, 1, type(uint128).max);
        durationDays = bound(durationDays, 1, 365);
        vm.warp(bound(start, 1, type(uint32).max));
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        uint256 listingId = _listAs(ALICE, tokenId, price, durationDays);
        IMarketplace.Listing memory listing = market.getListing(listingId);
        assertEq(listing.seller, ALICE, "seller");
        assertEq(listing.price, price, "price");
        assertEq(uint256(listing.expiresAt) - listing.listedAt, durationDays * 1 days, "duration");
        assertEq(token.ownerOf(tokenId), address(market), "escrowed");
        assertEq(
            uint256(market.stateOf(listingId)),
            uint256(IMarketplace.ListingState.Active),
            "active"
        );
    }

    function testFuzz_list_rejectsInvalidDuration(uint256 durationDays) public {
        vm.assume(durationDays == 0 || durationDays > 365);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        vm.expectRevert(
            abi.encodeWithSelector(IMarketplace.Marketplace__InvalidDuration.selector, durationDays)
        );
        token.safeTransferFrom(ALICE, address(market), tokenId, abi.encode(1 ether, durationDays));
    }

    function testFuzz_list_rejectsMalformedData(bytes calldata data) public {
        vm.assume(data.length != 64);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        vm.expectRevert(IMarketplace.Marketplace__InvalidListingData.selector);
        token.safeTransferFrom(ALICE, address(market), tokenId, data);
    }

    function testFuzz_buy_paysSellerAndRefundsExcess(uint256 price, uint256 extra) public {
        price = bound(price, 1, 1e30);
        extra = bound(extra, 0, 1e30);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        uint256 listingId = _listAs(ALICE, tokenId, price, 30);
        vm.deal(BOB, price + extra);
        uint256 sellerBefore = ALICE.balance;
        vm.prank(BOB);
        market.buy{value: price + extra}(listingId, price + extra);
        assertEq(BOB.balance, extra, "buyer paid exactly the price");
        assertEq(ALICE.balance - sellerBefore, price, "seller paid");
        assertEq(token.ownerOf(tokenId), BOB, "token delivered");
        assertEq(address(market).balance, 0, "nothing stranded");
        assertEq(
            uint256(market.stateOf(listingId)),
            uint256(IMarketplace.ListingState.Sold),
            "sold"
        );
    }

    function testFuzz_buy_revertsWhenPriceAboveMax(uint256 price, uint256 maxPrice) public {
        price = bound(price, 2, 1e30);
        maxPrice = bound(maxPrice, 0, price - 1);
        bytes4 err = IMarketplace.Marketplace__PriceAboveMax.selector;
        _expectBuyReverts(price, price, maxPrice, abi.encodeWithSelector(err, price, maxPrice));
    }

    function testFuzz_buy_revertsWhenUnderpaid(uint256 price, uint256 value) public {
        price = bound(price, 1, 1e30);
        value = bound(value, 0, price - 1);
        bytes4 err = IMarketplace.Marketplace__InsufficientPayment.selector;
        _expectBuyReverts(price, value, price, abi.encodeWithSelector(err, value, price));
    }

    /// @dev ALICE lists a fresh token at `price`; BOB's `buy{value}(listing, maxPrice)` reverts
    /// with `reason`.
    function _expectBuyReverts(
        uint256 price,
        uint256 value,
        uint256 maxPrice,
        bytes memory reason
    ) private {
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        uint256 listingId = _listAs(ALICE, tokenId, price, 30);
        vm.deal(BOB, value);
        vm.prank(BOB);
        vm.expectRevert(reason);
        market.buy{value: value}(listingId, maxPrice);
    }

    function testFuzz_stateOf_expiresExactlyAtExpiresAt(
        uint256 durationDays,
        uint256 elapsed
    ) public {
        durationDays = bound(durationDays, 1, 365);
        elapsed = bound(elapsed, 0, 400 days);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        uint256 listingId = _listAs(ALICE, tokenId, 1 ether, durationDays);
        vm.warp(block.timestamp + elapsed);
        IMarketplace.ListingState expected =
            elapsed >= durationDays * 1 days
                ? IMarketplace.ListingState.Expired
                : IMarketplace.ListingState.Active;
        assertEq(uint256(market.stateOf(listingId)), uint256(expected), "state");
        if (expected == IMarketplace.ListingState.Expired) {
            vm.prank(ALICE);
            market.reclaim(listingId);
            assertEq(token.ownerOf(tokenId), ALICE, "reclaimed");
        } else {
            uint256 expiresAt = market.getListing(listingId).expiresAt;
            vm.prank(ALICE);
            vm.expectRevert(
                abi.encodeWithSelector(
                    IMarketplace.Marketplace__NotExpired.selector,
                    listingId,
                    expiresAt
                )
            );
            market.reclaim(listingId);
        }
    }

    function testFuzz_updatePrice_onlySeller(address caller, uint256 newPrice) public {
        vm.assume(caller != ALICE);
        newPrice = bound(newPrice, 1, type(uint256).max);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        uint256 listingId = _listAs(ALICE, tokenId, 1 ether, 30);
        vm.prank(caller);
        vm.expectRevert(
            abi.encodeWithSelector(IMarketplace.Marketplace__NotSeller.selector, listingId, caller)
        );
        market.updatePrice(listingId, newPrice);
        vm.prank(ALICE);
        market.updatePrice(listingId, newPrice);
        assertEq(market.getListing(listingId).price, newPrice, "price");
    }

    function testFuzz_rescueToken_onlyOperator(address caller, address to) public {
        vm.assume(caller != address(this));
        vm.assume(to != address(0) && to != address(market) && to.code.length == 0);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        token.transferFrom(ALICE, address(market), tokenId);
        bytes32 role = market.OPERATOR_ROLE();
        vm.prank(caller);
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector,
                caller,
                role
            )
        );
        market.rescueToken(tokenId, to);
        market.rescueToken(tokenId, to);
        assertEq(token.ownerOf(tokenId), to, "rescued to the named address");
    }

    function testFuzz_rescueToken_neverTakesAnActiveListing(
        uint256 durationDays,
        uint32 later
    ) public {
        durationDays = bound(durationDays, 1, 365);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        uint256 listingId = _listAs(ALICE, tokenId, 1 ether, durationDays);
        vm.warp(block.timestamp + later);
        vm.expectRevert(
            abi.encodeWithSelector(
                IMarketplace.Marketplace__TokenListed.selector,
                tokenId,
                listingId
            )
        );
        market.rescueToken(tokenId, BOB);
        assertEq(token.ownerOf(tokenId), address(market), "still escrowed");
    }
}
