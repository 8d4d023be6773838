// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IAssetToken
/// @notice ERC-721 asset token backed by a native-coin stake. Each token records its asset type,
/// a content-addressed metadata reference (an IPFS CID stored as digest + version + codec +
/// multihash code), the stake it holds and an optional keccak256 password hash.
interface IAssetToken {
    /// @notice IPFS CID in parts. For CIDv0 use version 0, codec 0x70 (dag-pb), hashCode 0x12.
    /// @param digest the 32-byte multihash digest (sha2-256 and other 32-byte hashes)
    /// @param version CID version (0 or 1)
    /// @param codec multicodec of the content (0x55 raw, 0x70 dag-pb, 0x0129 dag-json, 0x0200 json, ...)
    /// @param hashCode multihash function code (0x12 sha2-256, 0x1e blake3, ...)
    struct Cid {
        bytes32 digest;
        uint8 version;
        uint64 codec;
        uint16 hashCode;
    }

    /// @notice Thrown when the value sent with a mint is below `MIN_STAKE`. Surfaced by the API as `Below min stake`.
    error AssetToken__BelowMinStake(uint256 value, uint256 minStake);
    /// @notice Thrown when the stake does not fit in 96 bits.
    error AssetToken__StakeTooLarge(uint256 value);
    /// @notice Thrown when the asset type is not registered.
    error AssetToken__UnknownAssetType(string assetType);
    /// @notice Thrown when the CID parts are not a CID this contract can render (version > 1, v0 not dag-pb/sha2-256, zero digest).
    error AssetToken__InvalidCid();
    /// @notice Thrown when the caller of `redeem` is not the token's owner.
    error AssetToken__NotTokenOwner(uint256 tokenId, address caller);
    /// @notice Thrown when returning the stake to the redeemer fails.
    error AssetToken__StakeTransferFailed(address to, uint256 amount);
    /// @notice Thrown when the constructor is given a zero registry or admin address.
    /// @dev A missing token reverts with ERC-6093's `ERC721NonexistentToken` and a mint to the zero
    /// address with `ERC721InvalidReceiver(address(0))`, so tools that decode those understand them.
    error AssetToken__ZeroAddress();

    /// @notice Emitted once per mint, with everything needed to build the asset record.
    /// @param tokenId the new token id (sequential from 1)
    /// @param owner the first owner
    /// @param typeId keccak256 of the asset type name
    /// @param stake native coin staked, in wei
    /// @param cidDigest metadata CID digest
    /// @param cidVersion metadata CID version
    /// @param cidCodec metadata CID codec
    /// @param cidHashCode metadata CID multihash code
    /// @param passwordHash keccak256 of the password, or zero
    /// @param minter the account that paid the stake
    event AssetIssued(
        uint256 indexed tokenId,
        address indexed owner,
        bytes32 indexed typeId,
        uint256 stake,
        bytes32 cidDigest,
        uint8 cidVersion,
        uint64 cidCodec,
        uint16 cidHashCode,
        bytes32 passwordHash,
        address minter
    );

    /// @notice Emitted when a token is burnt and its stake paid out.
    event AssetRedeemed(uint256 indexed tokenId, address indexed owner, uint256 stake);

    /// @notice Emitted when the operator sets or clears the base URI.
    event BaseURIUpdated(string baseURI);

    /// @notice Minimum stake per token: 0.1 native coin.
    function MIN_STAKE() external view returns (uint256);

    /// @notice The asset type registry.
    function registry() external view returns (address);

    /// @notice Mints a token to the caller, staking `msg.value`.
    /// @param assetType exact registered type name
    /// @param cid metadata reference
    /// @param passwordHash keccak256(password), or zero for none
    /// @return tokenId the new token id
    function mint(
        string calldata assetType,
        Cid calldata cid,
        bytes32 passwordHash
    ) external payable returns (uint256 tokenId);

    /// @notice Mints a token to `to`, staking `msg.value` paid by the caller.
    function mintTo(
        address to,
        string calldata assetType,
        Cid calldata cid,
        bytes32 passwordHash
    ) external payable returns (uint256 tokenId);

    /// @notice Burns a token held by the caller and sends its stake to the caller.
    function redeem(uint256 tokenId) external;

    /// @notice Sets the base URI (`<baseURI><tokenId>`); an empty string restores `ipfs://<cid>`. Admin only.
    function setBaseURI(string calldata baseURI) external;

    /// @notice The base URI, empty when unset.
    function baseURI() external view returns (string memory);

    /// @notice Name of the token's asset type.
    function assetTypeOf(uint256 tokenId) external view returns (string memory);

    /// @notice keccak256 of the token's asset type name.
    function assetTypeIdOf(uint256 tokenId) external view returns (bytes32);

    /// @notice Stake held for the token, in wei.
    function stakeOf(uint256 tokenId) external view returns (uint256);

    /// @notice keccak256 of the token's password, or zero.
    function passwordHashOf(uint256 tokenId) external view returns (bytes32);

    /// @notice Whether `password` matches the token's password hash (false when the token has none).
    function checkPassword(uint256 tokenId, string calldata password) external view returns (bool);

    /// @notice The token's metadata CID parts.
    function cidOf(uint256 tokenId) external view returns (Cid memory);

    /// @notice The token's metadata CID as text (`Qm...` for v0, base32 `b...` for v1).
    function cidStringOf(uint256 tokenId) external view returns (string memory);

    /// @notice Sum of the stakes of all live tokens, in wei (equals this contract's balance).
    function totalStaked() external view returns (uint256);

    /// @notice Id the next mint will get.
    function nextTokenId() external view returns (uint256);

    /// @notice Number of live tokens (minted and not redeemed).
    /// @dev Added after the first ABI round; purely additive.
    function totalSupply() external view returns (uint256);
}
