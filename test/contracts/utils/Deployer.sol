// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AssetTypeRegistry} from "../../../contracts/AssetTypeRegistry.sol";
import {AssetToken} from "../../../contracts/AssetToken.sol";
import {Marketplace} from "../../../contracts/Marketplace.sol";
import {IAssetToken} from "../../../contracts/interfaces/IAssetToken.sol";
import {DefaultAssetTypes} from "../../../contracts/libraries/DefaultAssetTypes.sol";
import {TestBase} from "./TestBase.sol";

/// @title SystemTest
/// @notice Test base that deploys the registry (with the default types), token and marketplace.
abstract contract SystemTest is TestBase {
    AssetTypeRegistry internal registry;
    AssetToken internal token;
    Marketplace internal market;

    address internal constant ALICE = address(0xA11CE);
    address internal constant BOB = address(0xB0B);
    address internal constant CAROL = address(0xCA401);

    function _deploySystem() internal {
        registry = new AssetTypeRegistry(address(this));
        registry.registerTypes(DefaultAssetTypes.names());
        token = new AssetToken(address(registry), address(this));
        market = new Marketplace(address(token), address(this));
        token.setMarketplace(address(market));
        vm.label(address(registry), "registry");
        vm.label(address(token), "token");
        vm.label(address(market), "market");
        vm.label(ALICE, "alice");
        vm.label(BOB, "bob");
        vm.label(CAROL, "carol");
    }

    function _cid(bytes32 digest) internal pure returns (IAssetToken.Cid memory) {
        return IAssetToken.Cid({digest: digest, version: 1, codec: 0x55, hashCode: 0x12});
    }

    /// @dev Mints one token to `owner` with `stake`, funding the owner first.
    function _mintAs(address owner, uint256 stake) internal returns (uint256 tokenId) {
        vm.deal(owner, owner.balance + stake);
        vm.prank(owner);
        tokenId = token.mint{value: stake}(
            "Real Estate",
            _cid(keccak256(abi.encode(owner, stake, gasleft()))),
            bytes32(0)
        );
    }

    /// @dev Lists `tokenId` (owned by `owner`) through safeTransferFrom.
    function _listAs(
        address owner,
        uint256 tokenId,
        uint256 price,
        uint256 durationDays
    ) internal returns (uint256 listingId) {
        listingId = market.nextListingId();
        vm.prank(owner);
        token.safeTransferFrom(owner, address(market), tokenId, abi.encode(price, durationDays));
    }
}
