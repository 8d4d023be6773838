// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IAssetCompliance} from "./interfaces/IAssetCompliance.sol";
import {IAssetToken} from "./interfaces/IAssetToken.sol";
import {IAssetTypeRegistry} from "./interfaces/IAssetTypeRegistry.sol";
import {IERC7943NonFungible} from "./interfaces/IERC7943NonFungible.sol";
import {IMarketplace} from "./interfaces/IMarketplace.sol";
import {CidText} from "./libraries/CidText.sol";
// OpenZeppelin's ERC721 and Strings.toString, vendored so the contracts compile before Cancun
// (contracts/vendor/README.md).
import {DecimalStrings} from "./vendor/openzeppelin/DecimalStrings.sol";
import {ERC721} from "./vendor/openzeppelin/ERC721.sol";

/// @title AssetToken
/// @notice ERC-721 real-world-asset token. Each token holds a native-coin stake (at least
/// `MIN_STAKE`) for as long as it exists; its current owner gets the stake back by redeeming
/// (burning) it. Per token the contract keeps the registry index of its asset type, its metadata
/// CID in parts and an optional keccak256 password hash.
/// ERC-7943 compliance controls (IAssetCompliance): frozen tokens, forced transfers, one pause
/// switch (OpenZeppelin `Pausable`) and restricted asset types backed by an allowlist.
/// @dev Storage per token is one packed slot (stake, type index, CID version/codec/hash code,
/// frozen flag), the digest slot, and the password-hash slot only when a hash is given.
///
/// Gas: the rules are checked from two slots a transfer must read anyway at most once each. The
/// policy slot packs `Pausable`'s flag with the supply counters and the restriction bits of type
/// indices 1-64 (declared right after `Pausable`'s `bool`, so they share its slot), so a mint
/// learns "paused" and "restricted" from the slot it updates anyway; a transfer reads that slot
/// and the token's data slot (frozen, type index). Only a token that is frozen, restricted or
/// moved while paused takes the slower path (allowlist, marketplace).
///
/// The contract has no receive or fallback function, so its balance only changes through mint and
/// redeem and always equals `totalStaked()` (barring coins forced in by selfdestruct or as a
/// block reward).
contract AssetToken is IAssetToken, IAssetCompliance, IERC4906, ERC721, AccessControl, Pausable {
    /// @inheritdoc IAssetToken
    uint256 public constant MIN_STAKE = 0.1 ether;
    /// @inheritdoc IAssetCompliance
    bytes32 public constant ENFORCER_ROLE = keccak256("ENFORCER_ROLE");
    /// @inheritdoc IAssetCompliance
    bytes32 public constant PAUSER_ROLE = keccak256("PAUSER_ROLE");
    /// @inheritdoc IAssetCompliance
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");

    /// @dev Type indices up to this one keep their restriction bit in the policy slot.
    uint256 private constant _PACKED_TYPE_BITS = 64;

    /// @dev Per-token fields in one slot (224 of 256 bits).
    struct TokenData {
        uint96 stake;
        uint32 typeIndex;
        uint8 cidVersion;
        uint64 cidCodec;
        uint16 cidHashCode;
        bool frozen;
    }

    // Policy slot, shared with `Pausable`'s flag (8 bits): these four add up to the other 248.
    // Keep them first and together (see the contract's notes on gas).
    uint40 private _nextTokenId;
    uint40 private _redeemedTokens;
    /// @dev Bounded by the coin supply; the checked addition still guards it.
    uint104 private _totalStaked;
    /// @dev Bit `i - 1` set: type index `i` (1-64) is restricted.
    uint64 private _restrictedTypeBits;

    IAssetTypeRegistry private immutable _registry;

    string private _baseTokenURI;
    address private _marketplace;

    mapping(uint256 tokenId => TokenData) private _tokenData;
    mapping(uint256 tokenId => bytes32) private _cidDigests;
    mapping(uint256 tokenId => bytes32) private _passwordHashes;
    /// @dev Restriction of type indices above `_PACKED_TYPE_BITS`.
    mapping(uint32 typeIndex => bool) private _restrictedHighTypes;
    mapping(address account => bool) private _allowed;

    /// @dev Which rule refuses a transfer.
    enum Refusal {
        None,
        Paused,
        Frozen,
        Recipient
    }

    /// @param registry_ the asset type registry
    /// @param admin account granted `DEFAULT_ADMIN_ROLE` (may set the base URI and the
    /// marketplace) and the enforcer, pauser and registrar roles (it may grant them to others)
    constructor(address registry_, address admin) ERC721("RWA Asset", "RWA") {
        if (registry_ == address(0) || admin == address(0)) revert AssetToken__ZeroAddress();
        _registry = IAssetTypeRegistry(registry_);
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(ENFORCER_ROLE, admin);
        _grantRole(PAUSER_ROLE, admin);
        _grantRole(REGISTRAR_ROLE, admin);
        // Start ids at 1; writing the slot now also spares the first mint a zero-to-non-zero write.
        _nextTokenId = 1;
    }

    // ---------------------------------------------------------------- mint / redeem

    /// @inheritdoc IAssetToken
    function mint(
        string calldata assetType,
        Cid calldata cid,
        bytes32 passwordHash
    ) external payable returns (uint256 tokenId) {
        tokenId = _issue(_msgSender(), assetType, cid, passwordHash);
    }

    /// @inheritdoc IAssetToken
    function mintTo(
        address to,
        string calldata assetType,
        Cid calldata cid,
        bytes32 passwordHash
    ) external payable returns (uint256 tokenId) {
        // Checked before any work, with ERC-6093's word for it (OpenZeppelin's `_mint` says the same).
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        tokenId = _issue(to, assetType, cid, passwordHash);
    }

    /// @inheritdoc IAssetToken
    function redeem(uint256 tokenId) external {
        address owner = _ownerOf(tokenId);
        if (owner == address(0)) revert ERC721NonexistentToken(tokenId);
        if (owner != _msgSender()) revert AssetToken__NotTokenOwner(tokenId, _msgSender());
        _requireNotPaused();
        TokenData memory data = _tokenData[tokenId];
        if (data.frozen) revert ERC7943InsufficientUnfrozenBalance(owner, tokenId);

        // Effects: every piece of state is final before the stake leaves.
        uint256 stake = data.stake;
        delete _tokenData[tokenId];
        delete _cidDigests[tokenId];
        delete _passwordHashes[tokenId];
        unchecked {
            // The token is live: it was counted as minted and its stake is part of the total.
            _redeemedTokens += 1;
            _totalStaked -= uint104(stake);
        }
        _burn(tokenId);
        emit AssetRedeemed(tokenId, owner, stake);

        // Interaction.
        (bool ok, ) = owner.call{value: stake}("");
        if (!ok) revert AssetToken__StakeTransferFailed(owner, stake);
    }

    // ---------------------------------------------------------------- admin

    /// @inheritdoc IAssetToken
    function setBaseURI(string calldata baseURI_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _baseTokenURI = baseURI_;
        emit BaseURIUpdated(baseURI_);
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    // ---------------------------------------------------------------- compliance (ERC-7943)

    /// @inheritdoc IAssetCompliance
    function freeze(uint256 tokenId, string calldata reason) external onlyRole(ENFORCER_ROLE) {
        _setFrozen(_requireOwned(tokenId), tokenId, true, reason);
    }

    /// @inheritdoc IAssetCompliance
    function unfreeze(uint256 tokenId, string calldata reason) external onlyRole(ENFORCER_ROLE) {
        _setFrozen(_requireOwned(tokenId), tokenId, false, reason);
    }

    /// @inheritdoc IERC7943NonFungible
    /// @dev Per token, not per account: `account` must be the token's holder (the marketplace
    /// while it is escrowed), so the `Frozen` event names who holds it.
    function setFrozenTokens(
        address account,
        uint256 tokenId,
        bool frozenStatus
    ) external onlyRole(ENFORCER_ROLE) returns (bool) {
        address holder = _requireOwned(tokenId);
        if (account != holder) revert AssetToken__NotHolder(account, tokenId, holder);
        _setFrozen(holder, tokenId, frozenStatus, "");
        return true;
    }

    /// @inheritdoc IERC7943NonFungible
    function forcedTransfer(
        address from,
        address to,
        uint256 tokenId
    ) external onlyRole(ENFORCER_ROLE) returns (bool) {
        _forcedTransfer(from, to, tokenId, "");
        return true;
    }

    /// @inheritdoc IAssetCompliance
    function forcedTransferWithReason(
        address from,
        address to,
        uint256 tokenId,
        string calldata reason
    ) external onlyRole(ENFORCER_ROLE) {
        _forcedTransfer(from, to, tokenId, reason);
    }

    /// @inheritdoc IAssetCompliance
    function pause(string calldata reason) external onlyRole(PAUSER_ROLE) {
        _pause();
        emit MarketPaused(_msgSender(), reason);
    }

    /// @inheritdoc IAssetCompliance
    function unpause(string calldata reason) external onlyRole(PAUSER_ROLE) {
        _unpause();
        emit MarketResumed(_msgSender(), reason);
    }

    /// @inheritdoc IAssetCompliance
    function setTypeRestricted(
        string calldata assetType,
        bool restricted
    ) external onlyRole(REGISTRAR_ROLE) {
        bytes32 typeId = keccak256(bytes(assetType));
        uint32 typeIndex = _registry.indexOf(typeId);
        if (typeIndex == 0) revert AssetToken__UnknownAssetType(assetType);
        if (typeIndex <= _PACKED_TYPE_BITS) {
            uint64 bit = uint64(1) << (typeIndex - 1);
            _restrictedTypeBits =
                restricted ? _restrictedTypeBits | bit : _restrictedTypeBits & ~bit;
        } else {
            _restrictedHighTypes[typeIndex] = restricted;
        }
        emit AssetTypeRestrictionSet(typeId, typeIndex, restricted);
    }

    /// @inheritdoc IAssetCompliance
    function setAllowed(address account, bool allowed) external onlyRole(ENFORCER_ROLE) {
        if (account == address(0)) revert ERC7943CannotReceive(account);
        _allowed[account] = allowed;
        emit AllowlistUpdated(account, allowed);
    }

    /// @inheritdoc IAssetCompliance
    function setMarketplace(address marketplace_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        address current = _marketplace;
        if (current != address(0) || marketplace_ == address(0))
            revert AssetToken__MarketplaceAlreadySet(current);
        _marketplace = marketplace_;
        emit MarketplaceSet(marketplace_);
    }

    /// @inheritdoc IERC7943NonFungible
    /// @dev No account-level send restriction exists: freezing is per token.
    function canSend(address) external pure returns (bool) {
        return true;
    }

    /// @inheritdoc IERC7943NonFungible
    /// @dev "May hold tokens of restricted types": the allowlist. Unrestricted types go to anyone,
    /// so `canTransfer` consults this for restricted tokens only.
    function canReceive(address account) external view returns (bool) {
        return _allowed[account];
    }

    /// @inheritdoc IERC7943NonFungible
    function getFrozenTokens(address, uint256 tokenId) external view returns (bool) {
        return _tokenData[tokenId].frozen;
    }

    /// @inheritdoc IERC7943NonFungible
    function canTransfer(address from, address to, uint256 tokenId) external view returns (bool) {
        TokenData storage data = _tokenData[tokenId];
        return
            _refusal(from, to, tokenId, data.frozen, _isRestrictedType(data.typeIndex)) ==
            Refusal.None;
    }

    /// @inheritdoc IAssetCompliance
    function isTypeRestricted(string calldata assetType) external view returns (bool) {
        return _isRestrictedType(_registry.indexOf(keccak256(bytes(assetType))));
    }

    /// @inheritdoc IAssetCompliance
    function isTypeIndexRestricted(uint32 typeIndex) external view returns (bool) {
        return _isRestrictedType(typeIndex);
    }

    /// @inheritdoc IAssetCompliance
    function isFrozen(uint256 tokenId) external view returns (bool) {
        return _existing(tokenId).frozen;
    }

    /// @inheritdoc IAssetCompliance
    function isAllowed(address account) external view returns (bool) {
        return _allowed[account];
    }

    /// @inheritdoc IAssetCompliance
    function marketplace() external view returns (address) {
        return _marketplace;
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IAssetToken
    function registry() external view returns (address) {
        return address(_registry);
    }

    /// @inheritdoc IAssetToken
    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
    }

    /// @notice `<baseURI><tokenId>` when a base URI is set, otherwise `ipfs://<cid>`.
    /// @dev Reverts with OpenZeppelin's `ERC721NonexistentToken` for a missing token, as ERC-721 tooling expects.
    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        string memory base = _baseTokenURI;
        if (bytes(base).length != 0) return string.concat(base, DecimalStrings.toString(tokenId));
        return string.concat("ipfs://", _cidText(tokenId));
    }

    /// @inheritdoc IAssetToken
    function assetTypeOf(uint256 tokenId) external view returns (string memory) {
        return _registry.typeAt(_existing(tokenId).typeIndex);
    }

    /// @inheritdoc IAssetToken
    function assetTypeIdOf(uint256 tokenId) external view returns (bytes32) {
        return keccak256(bytes(_registry.typeAt(_existing(tokenId).typeIndex)));
    }

    /// @inheritdoc IAssetToken
    function stakeOf(uint256 tokenId) external view returns (uint256) {
        return _existing(tokenId).stake;
    }

    /// @inheritdoc IAssetToken
    function passwordHashOf(uint256 tokenId) external view returns (bytes32) {
        _existing(tokenId);
        return _passwordHashes[tokenId];
    }

    /// @inheritdoc IAssetToken
    function checkPassword(uint256 tokenId, string calldata password) external view returns (bool) {
        _existing(tokenId);
        bytes32 hash = _passwordHashes[tokenId];
        return hash != bytes32(0) && keccak256(bytes(password)) == hash;
    }

    /// @inheritdoc IAssetToken
    function cidOf(uint256 tokenId) external view returns (Cid memory) {
        TokenData memory data = _existing(tokenId);
        return
            Cid({
                digest: _cidDigests[tokenId],
                version: data.cidVersion,
                codec: data.cidCodec,
                hashCode: data.cidHashCode
            });
    }

    /// @inheritdoc IAssetToken
    function cidStringOf(uint256 tokenId) external view returns (string memory) {
        _existing(tokenId);
        return _cidText(tokenId);
    }

    /// @inheritdoc IAssetToken
    function totalStaked() external view returns (uint256) {
        return _totalStaked;
    }

    /// @inheritdoc IAssetToken
    function nextTokenId() external view returns (uint256) {
        return _nextTokenId;
    }

    /// @inheritdoc IAssetToken
    function totalSupply() external view returns (uint256) {
        unchecked {
            // Every redeemed token was minted first, and ids start at 1.
            return uint256(_nextTokenId) - 1 - _redeemedTokens;
        }
    }

    /// @inheritdoc IERC165
    function supportsInterface(
        bytes4 interfaceId
    ) public view override(ERC721, AccessControl, IERC165) returns (bool) {
        return
            interfaceId == bytes4(0x49064906) || // ERC-4906
            interfaceId == type(IERC7943NonFungible).interfaceId ||
            interfaceId == type(IAssetToken).interfaceId ||
            ERC721.supportsInterface(interfaceId) ||
            AccessControl.supportsInterface(interfaceId);
    }

    // ---------------------------------------------------------------- internals

    /// @dev Every ownership change but a mint, a burn and a forced transfer (which call
    /// `ERC721._update` directly) passes the transfer rules here. The common case (not paused,
    /// not frozen, not restricted) costs the two slot reads described at the top of this contract.
    function _update(
        address to,
        uint256 tokenId,
        address auth
    ) internal override returns (address from) {
        from = super._update(to, tokenId, auth);
        // Mints are checked in _issue, burns in redeem.
        if (from == address(0) || to == address(0)) return from;
        TokenData storage data = _tokenData[tokenId];
        bool frozen = data.frozen;
        bool restricted = _isRestrictedType(data.typeIndex);
        if (!frozen && !restricted && !paused()) return from;
        Refusal refusal = _refusal(from, to, tokenId, frozen, restricted);
        if (refusal == Refusal.Paused) revert EnforcedPause();
        if (refusal == Refusal.Frozen) revert ERC7943InsufficientUnfrozenBalance(from, tokenId);
        if (refusal == Refusal.Recipient) revert ERC7943CannotReceive(to);
    }

    /// @dev The rule that refuses moving `tokenId` from `from` to `to`, or `None`. Never reverts.
    /// A return from escrow to the token's seller (delist, reclaim) passes pause and freeze; a
    /// restricted token may enter escrow, and leaves it only for an allowlisted address.
    function _refusal(
        address from,
        address to,
        uint256 tokenId,
        bool frozen,
        bool restricted
    ) private view returns (Refusal) {
        address market = _marketplace;
        bool returnToSeller =
            from == market && from != address(0) && _lastSeller(market, tokenId) == to;
        if (paused() && !returnToSeller) return Refusal.Paused;
        if (frozen && !returnToSeller) return Refusal.Frozen;
        if (restricted && to != market && !_allowed[to]) return Refusal.Recipient;
        return Refusal.None;
    }

    /// @dev The seller of `tokenId`'s latest listing, or zero when the marketplace cannot say.
    function _lastSeller(address market, uint256 tokenId) private view returns (address) {
        try IMarketplace(market).lastSellerOf(tokenId) returns (address seller) {
            return seller;
        } catch {
            return address(0);
        }
    }

    /// @dev Whether type index `typeIndex` is restricted (index 0, no type, is not).
    function _isRestrictedType(uint32 typeIndex) private view returns (bool) {
        if (typeIndex == 0) return false;
        if (typeIndex <= _PACKED_TYPE_BITS)
            return (_restrictedTypeBits >> (typeIndex - 1)) & 1 == 1;
        return _restrictedHighTypes[typeIndex];
    }

    /// @dev Sets the frozen flag and emits ERC-7943's `Frozen` with ours.
    function _setFrozen(
        address holder,
        uint256 tokenId,
        bool frozen,
        string memory reason
    ) private {
        _tokenData[tokenId].frozen = frozen;
        emit Frozen(holder, tokenId, frozen);
        if (frozen) emit AssetFrozen(tokenId, holder, reason);
        else emit AssetUnfrozen(tokenId, holder, reason);
    }

    /// @dev Moves `tokenId` from its holder `from` to `to` past pause and freeze: releases its
    /// listing when escrowed (the listing ends cancelled), unfreezes it first (ERC-7943: `Frozen`
    /// before `Transfer`), and still refuses a recipient a restricted type does not allow. No
    /// receiver hook: a recipient contract cannot refuse an enforcement action.
    function _forcedTransfer(
        address from,
        address to,
        uint256 tokenId,
        string memory reason
    ) private {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        address market = _marketplace;
        if (to == market || to == from) revert AssetToken__InvalidForcedRecipient(to);
        address holder = _requireOwned(tokenId);
        if (holder != from) revert ERC721IncorrectOwner(from, tokenId, holder);
        TokenData storage data = _tokenData[tokenId];
        if (_isRestrictedType(data.typeIndex) && !_allowed[to]) revert ERC7943CannotReceive(to);
        if (from == market) IMarketplace(market).releaseForForcedTransfer(tokenId);
        if (data.frozen) _setFrozen(from, tokenId, false, reason);
        ERC721._update(to, tokenId, address(0));
        emit ForcedTransfer(from, to, tokenId);
        emit AssetForcedTransfer(tokenId, from, to, reason);
    }

    /// @dev Validates, records and mints one token to `to`, staking `msg.value`.
    function _issue(
        address to,
        string calldata assetType,
        Cid calldata cid,
        bytes32 passwordHash
    ) private returns (uint256 tokenId) {
        if (msg.value < MIN_STAKE) revert AssetToken__BelowMinStake(msg.value, MIN_STAKE);
        if (msg.value > type(uint96).max) revert AssetToken__StakeTooLarge(msg.value);
        if (!CidText.isValid(cid.digest, cid.version, cid.codec, cid.hashCode))
            revert AssetToken__InvalidCid();
        _requireNotPaused();
        bytes32 typeId = keccak256(bytes(assetType));
        uint32 typeIndex = _registry.indexOf(typeId);
        if (typeIndex == 0) revert AssetToken__UnknownAssetType(assetType);
        if (_isRestrictedType(typeIndex) && !_allowed[to]) revert ERC7943CannotReceive(to);

        tokenId = _nextTokenId;
        unchecked {
            // One id per mint and every mint locks at least 0.1 coin: 2^40 mints cannot happen.
            _nextTokenId = uint40(tokenId + 1);
        }
        // Checked: the sum of stakes is bounded by the coin supply, but keep the guard. The cast
        // is exact: msg.value fits in 96 bits (checked above).
        _totalStaked += uint104(msg.value);

        _tokenData[tokenId] = TokenData({
            stake: uint96(msg.value),
            typeIndex: typeIndex,
            cidVersion: cid.version,
            cidCodec: cid.codec,
            cidHashCode: cid.hashCode,
            frozen: false
        });
        _cidDigests[tokenId] = cid.digest;
        if (passwordHash != bytes32(0)) _passwordHashes[tokenId] = passwordHash;

        _mint(to, tokenId);
        emit AssetIssued(
            tokenId,
            to,
            typeId,
            msg.value,
            cid.digest,
            cid.version,
            cid.codec,
            cid.hashCode,
            passwordHash,
            _msgSender()
        );
        // Receiver check last (as `_safeMint` does): all state is final before the callback.
        ERC721Utils.checkOnERC721Received(_msgSender(), address(0), to, tokenId, "");
    }

    /// @dev The data of a live token; reverts with ERC-6093's `ERC721NonexistentToken` otherwise.
    function _existing(uint256 tokenId) private view returns (TokenData memory data) {
        if (_ownerOf(tokenId) == address(0)) revert ERC721NonexistentToken(tokenId);
        data = _tokenData[tokenId];
    }

    /// @dev Text form of a live token's CID.
    function _cidText(uint256 tokenId) private view returns (string memory) {
        TokenData memory data = _tokenData[tokenId];
        return
            CidText.toText(_cidDigests[tokenId], data.cidVersion, data.cidCodec, data.cidHashCode);
    }
}
