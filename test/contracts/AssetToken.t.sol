// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IAssetToken} from "../../contracts/interfaces/IAssetToken.sol";
import {IAssetTypeRegistry} from "../../contracts/interfaces/IAssetTypeRegistry.sol";
import {SystemTest} from "./utils/Deployer.sol";

/// @notice Fuzz tests for AssetToken and AssetTypeRegistry.
contract AssetTokenFuzzTest is SystemTest {
    uint256 private constant MIN_STAKE = 0.1 ether;

    function setUp() public {
        _deploySystem();
    }

    function testFuzz_mint_stakeIsHeld(uint96 stake, bytes32 digest, bytes32 passwordHash) public {
        uint256 value = bound(stake, MIN_STAKE, type(uint96).max);
        vm.assume(digest != bytes32(0));
        vm.deal(ALICE, value);
        vm.prank(ALICE);
        uint256 tokenId = token.mint{value: value}("Wine", _cid(digest), passwordHash);
        assertEq(tokenId, 1, "first id");
        assertEq(token.stakeOf(tokenId), value, "stakeOf");
        assertEq(token.totalStaked(), value, "totalStaked");
        assertEq(address(token).balance, value, "balance");
        assertEq(token.passwordHashOf(tokenId), passwordHash, "password hash");
        assertEq(token.ownerOf(tokenId), ALICE, "owner");
    }

    function testFuzz_mint_revertsBelowMinStake(uint256 value) public {
        value = bound(value, 0, MIN_STAKE - 1);
        vm.deal(ALICE, value);
        vm.prank(ALICE);
        vm.expectRevert(
            abi.encodeWithSelector(IAssetToken.AssetToken__BelowMinStake.selector, value, MIN_STAKE)
        );
        token.mint{value: value}("Wine", _cid(keccak256("x")), bytes32(0));
    }

    function testFuzz_mint_revertsForUnknownType(string calldata name) public {
        vm.assume(!registry.isRegistered(name));
        vm.deal(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        vm.expectRevert(
            abi.encodeWithSelector(IAssetToken.AssetToken__UnknownAssetType.selector, name)
        );
        token.mint{value: MIN_STAKE}(name, _cid(keccak256("x")), bytes32(0));
    }

    function testFuzz_mint_cidV1RoundTrips(bytes32 digest, uint64 codec, uint16 hashCode) public {
        vm.assume(digest != bytes32(0));
        IAssetToken.Cid memory cid = IAssetToken.Cid({
            digest: digest,
            version: 1,
            codec: codec,
            hashCode: hashCode
        });
        vm.deal(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        uint256 tokenId = token.mint{value: MIN_STAKE}("Art", cid, bytes32(0));
        IAssetToken.Cid memory stored = token.cidOf(tokenId);
        assertEq(stored.digest, digest, "digest");
        assertEq(stored.version, 1, "version");
        assertEq(stored.codec, codec, "codec");
        assertEq(stored.hashCode, hashCode, "hashCode");
        bytes memory text = bytes(token.cidStringOf(tokenId));
        uint256 rawLength =
            _varintLength(1) + _varintLength(codec) + _varintLength(hashCode) + 1 + 32;
        assertEq(text.length, 1 + (rawLength * 8 + 4) / 5, "base32 length");
        assertEq(uint8(text[0]), uint8(bytes1("b")), "multibase prefix");
        for (uint256 i = 1; i < text.length; ++i) {
            bytes1 c = text[i];
            assertTrue(
                (c >= "a" && c <= "z") || (c >= "2" && c <= "7"),
                "base32 lower-case alphabet"
            );
        }
    }

    function testFuzz_mint_cidV0RendersQm(bytes32 digest) public {
        vm.assume(digest != bytes32(0));
        IAssetToken.Cid memory cid = IAssetToken.Cid({
            digest: digest,
            version: 0,
            codec: 0x70,
            hashCode: 0x12
        });
        vm.deal(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        uint256 tokenId = token.mint{value: MIN_STAKE}("Art", cid, bytes32(0));
        bytes memory text = bytes(token.cidStringOf(tokenId));
        assertEq(text.length, 46, "CIDv0 length");
        assertEq(uint8(text[0]), uint8(bytes1("Q")), "Q");
        assertEq(uint8(text[1]), uint8(bytes1("m")), "m");
    }

    function testFuzz_mint_rejectsInvalidCid(
        bytes32 digest,
        uint8 version,
        uint64 codec,
        uint16 hashCode
    ) public {
        bool valid =
            digest != bytes32(0) &&
                (version == 1 || (version == 0 && codec == 0x70 && hashCode == 0x12));
        vm.assume(!valid);
        IAssetToken.Cid memory cid = IAssetToken.Cid({
            digest: digest,
            version: version,
            codec: codec,
            hashCode: hashCode
        });
        vm.deal(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        vm.expectRevert(IAssetToken.AssetToken__InvalidCid.selector);
        token.mint{value: MIN_STAKE}("Art", cid, bytes32(0));
    }

    function testFuzz_redeem_returnsStakeToCurrentOwner(uint96 stake, bool transferFirst) public {
        uint256 value = bound(stake, MIN_STAKE, type(uint96).max);
        uint256 tokenId = _mintAs(ALICE, value);
        address owner = ALICE;
        if (transferFirst) {
            vm.prank(ALICE);
            token.transferFrom(ALICE, BOB, tokenId);
            owner = BOB;
        }
        uint256 before = owner.balance;
        vm.prank(owner);
        token.redeem(tokenId);
        assertEq(owner.balance - before, value, "stake returned");
        assertEq(token.totalStaked(), 0, "totalStaked");
        assertEq(address(token).balance, 0, "balance");
        assertEq(token.totalSupply(), 0, "supply");
    }

    function testFuzz_redeem_revertsForNonOwner(address caller) public {
        vm.assume(caller != ALICE);
        uint256 tokenId = _mintAs(ALICE, MIN_STAKE);
        vm.prank(caller);
        vm.expectRevert(
            abi.encodeWithSelector(IAssetToken.AssetToken__NotTokenOwner.selector, tokenId, caller)
        );
        token.redeem(tokenId);
    }

    function testFuzz_checkPassword_matchesOnlyTheHashedPassword(
        string calldata password,
        string calldata guess
    ) public {
        vm.deal(ALICE, MIN_STAKE);
        vm.prank(ALICE);
        uint256 tokenId = token.mint{value: MIN_STAKE}(
            "Art",
            _cid(keccak256("p")),
            keccak256(bytes(password))
        );
        assertTrue(token.checkPassword(tokenId, password), "right password");
        assertEq(
            token.checkPassword(tokenId, guess) ? 1 : 0,
            keccak256(bytes(guess)) == keccak256(bytes(password)) ? 1 : 0,
            "guess"
        );
    }

    function testFuzz_registerType_enforcesLength(uint256 length) public {
        length = bound(length, 0, 200);
        bytes memory name = new bytes(length);
        for (uint256 i = 0; i < length; ++i) name[i] = "q";
        if (length == 0) {
            vm.expectRevert(IAssetTypeRegistry.AssetTypeRegistry__EmptyName.selector);
        } else if (length > 64) {
            vm.expectRevert(
                abi.encodeWithSelector(
                    IAssetTypeRegistry.AssetTypeRegistry__NameTooLong.selector,
                    length,
                    64
                )
            );
        }
        registry.registerType(string(name));
        if (length != 0 && length <= 64) {
            assertEq(registry.indexOf(keccak256(name)), 30, "index after the 29 defaults");
            assertEq(registry.typeAt(30), string(name), "typeAt");
        }
    }

    function _varintLength(uint256 value) private pure returns (uint256 length) {
        length = 1;
        while (value >= 0x80) {
            value >>= 7;
            ++length;
        }
    }
}
