// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {IAssetToken} from "./interfaces/IAssetToken.sol";
import {IAssetTypeRegistry} from "./interfaces/IAssetTypeRegistry.sol";
import {CidText} from "./libraries/CidText.sol";

/// @title AssetToken
/// @notice ERC-721 real-world-asset token. Each token holds a native-coin stake (at least
/// `MIN_STAKE`) for as long as it exists; its current owner gets the stake back by redeeming
/// (burning) it. Per token the contract keeps the registry index of its asset type, its metadata
/// CID in parts and an optional keccak256 password hash.
/// @dev Storage per token is one packed slot (stake, type index, CID version/codec/hash code),
/// the digest slot, and the password-hash slot only when a hash is given. The contract has no
/// receive or fallback function, so its balance only changes through mint and redeem and always
/// equals `totalStaked()` (barring coins forced in by selfdestruct or as a block reward).
contract AssetToken is IAssetToken, IERC4906, ERC721, AccessControl {
    /// @inheritdoc IAssetToken
    uint256 public constant MIN_STAKE = 0.1 ether;

    /// @dev Per-token fields in one slot (216 of 256 bits).
    struct TokenData {
        uint96 stake;
        uint32 typeIndex;
        uint8 cidVersion;
        uint64 cidCodec;
        uint16 cidHashCode;
    }

    /// @dev Contract-wide counters, in one slot so a mint updates them with a single write.
    struct Supply {
        uint64 nextTokenId;
        uint64 liveTokens;
        uint128 totalStaked;
    }

    IAssetTypeRegistry private immutable _registry;

    Supply private _supply;
    string private _baseTokenURI;

    mapping(uint256 tokenId => TokenData) private _tokenData;
    mapping(uint256 tokenId => bytes32) private _cidDigests;
    mapping(uint256 tokenId => bytes32) private _passwordHashes;

    /// @param registry_ the asset type registry
    /// @param admin account granted `DEFAULT_ADMIN_ROLE` (may set the base URI)
    constructor(address registry_, address admin) ERC721("RWA Asset", "RWA") {
        if (registry_ == address(0) || admin == address(0)) revert AssetToken__ZeroAddress();
        _registry = IAssetTypeRegistry(registry_);
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        // Start ids at 1; writing the slot now also spares the first mint a zero-to-non-zero write.
        _supply.nextTokenId = 1;
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

        // Effects: every piece of state is final before the stake leaves.
        uint256 stake = _tokenData[tokenId].stake;
        delete _tokenData[tokenId];
        delete _cidDigests[tokenId];
        delete _passwordHashes[tokenId];
        Supply memory supply = _supply;
        unchecked {
            // The token is live, so it was counted in liveTokens and its stake in totalStaked.
            supply.liveTokens -= 1;
            supply.totalStaked -= uint128(stake);
        }
        _supply = supply;
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
        if (bytes(base).length != 0) return string.concat(base, Strings.toString(tokenId));
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
        return _supply.totalStaked;
    }

    /// @inheritdoc IAssetToken
    function nextTokenId() external view returns (uint256) {
        return _supply.nextTokenId;
    }

    /// @inheritdoc IAssetToken
    function totalSupply() external view returns (uint256) {
        return _supply.liveTokens;
    }

    /// @inheritdoc IERC165
    function supportsInterface(
        bytes4 interfaceId
    ) public view override(ERC721, AccessControl, IERC165) returns (bool) {
        return
            interfaceId == bytes4(0x49064906) || // ERC-4906
            interfaceId == type(IAssetToken).interfaceId ||
            ERC721.supportsInterface(interfaceId) ||
            AccessControl.supportsInterface(interfaceId);
    }

    // ---------------------------------------------------------------- internals

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
        bytes32 typeId = keccak256(bytes(assetType));
        uint32 typeIndex = _registry.indexOf(typeId);
        if (typeIndex == 0) revert AssetToken__UnknownAssetType(assetType);

        Supply memory supply = _supply;
        tokenId = supply.nextTokenId;
        unchecked {
            // One id per mint and every mint locks at least 0.1 coin: 2^64 mints cannot happen,
            // and liveTokens never exceeds the number of ids handed out.
            supply.nextTokenId += 1;
            supply.liveTokens += 1;
        }
        // Checked: the sum of stakes is bounded by the coin supply, but keep the guard.
        supply.totalStaked += uint128(msg.value);
        _supply = supply;

        _tokenData[tokenId] = TokenData({
            stake: uint96(msg.value),
            typeIndex: typeIndex,
            cidVersion: cid.version,
            cidCodec: cid.codec,
            cidHashCode: cid.hashCode
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
