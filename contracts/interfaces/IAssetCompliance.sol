// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC7943NonFungible} from "./IERC7943NonFungible.sol";

/// @title IAssetCompliance
/// @notice AssetToken's compliance controls on top of ERC-7943: freezing with a reason, forced
/// transfers that release escrow, one pause switch over every transfer and the marketplace, and
/// restricted asset types whose tokens only allowlisted addresses may hold.
///
/// Rules (docs/contracts.md "Compliance controls"):
/// - A frozen token does not move: no transfer, listing, purchase or redemption. While it sits in
///   escrow, the marketplace may still return it to its seller (delist, reclaim).
/// - While paused, nothing is minted, moved or redeemed, except returns from escrow to the seller
///   (delist, reclaim) and the enforcer's actions (freeze, forced transfer, allowlist).
/// - A token of a restricted type only goes to an allowlisted address (`canReceive`); the
///   marketplace's escrow counts as its seller's custody.
/// - `canReceive(account)` answers "may hold restricted types"; `canTransfer` applies it to tokens
///   of restricted types only, since unrestricted types may go to anyone.
interface IAssetCompliance is IERC7943NonFungible {
    /// @notice Thrown when a token is frozen or unfrozen for an account that does not hold it.
    error AssetToken__NotHolder(address account, uint256 tokenId, address holder);
    /// @notice Thrown when a forced transfer names the marketplace as recipient.
    error AssetToken__InvalidForcedRecipient(address to);
    /// @notice Thrown when the marketplace is set twice or to the zero address.
    error AssetToken__MarketplaceAlreadySet(address current);

    /// @notice Emitted with every freeze, beside ERC-7943's `Frozen`, carrying the reason.
    event AssetFrozen(uint256 indexed tokenId, address indexed holder, string reason);
    /// @notice Emitted with every unfreeze (a forced transfer's included), carrying the reason.
    event AssetUnfrozen(uint256 indexed tokenId, address indexed holder, string reason);
    /// @notice Emitted with every forced transfer, beside ERC-7943's `ForcedTransfer`.
    event AssetForcedTransfer(
        uint256 indexed tokenId,
        address indexed from,
        address indexed to,
        string reason
    );
    /// @notice Emitted when the pauser halts transfers and the market (beside `Paused`).
    event MarketPaused(address indexed by, string reason);
    /// @notice Emitted when the pauser resumes transfers and the market (beside `Unpaused`).
    event MarketResumed(address indexed by, string reason);
    /// @notice Emitted when a registrar marks an asset type restricted or unrestricted.
    event AssetTypeRestrictionSet(bytes32 indexed typeId, uint32 index, bool restricted);
    /// @notice Emitted when the enforcer adds an address to, or removes it from, the allowlist.
    event AllowlistUpdated(address indexed account, bool allowed);
    /// @notice Emitted once, when the admin names the marketplace whose escrow counts as custody.
    event MarketplaceSet(address marketplace);

    /// @notice Role that freezes, unfreezes, forces transfers and keeps the allowlist.
    function ENFORCER_ROLE() external view returns (bytes32);
    /// @notice Role that pauses and resumes every transfer and the marketplace.
    function PAUSER_ROLE() external view returns (bytes32);
    /// @notice Role that marks asset types restricted (the token's own; not the registry's).
    function REGISTRAR_ROLE() external view returns (bytes32);

    /// @notice Freezes `tokenId` (wherever it is held). Idempotent. `ENFORCER_ROLE` only.
    function freeze(uint256 tokenId, string calldata reason) external;
    /// @notice Unfreezes `tokenId`. Idempotent. `ENFORCER_ROLE` only.
    function unfreeze(uint256 tokenId, string calldata reason) external;
    /// @notice `forcedTransfer` with a reason. An escrowed token's active listing ends cancelled
    /// first; a frozen token is unfrozen first (ERC-7943). `ENFORCER_ROLE` only.
    function forcedTransferWithReason(
        address from,
        address to,
        uint256 tokenId,
        string calldata reason
    ) external;
    /// @notice Halts transfers and the market. `PAUSER_ROLE` only.
    function pause(string calldata reason) external;
    /// @notice Resumes transfers and the market. `PAUSER_ROLE` only.
    function unpause(string calldata reason) external;
    /// @notice Marks a registered type restricted or not. `REGISTRAR_ROLE` only.
    function setTypeRestricted(string calldata assetType, bool restricted) external;
    /// @notice Adds or removes `account` on the allowlist of restricted types. `ENFORCER_ROLE` only.
    function setAllowed(address account, bool allowed) external;
    /// @notice Names the marketplace (once). `DEFAULT_ADMIN_ROLE` only.
    function setMarketplace(address marketplace) external;

    /// @notice Whether the registered type `assetType` is restricted.
    function isTypeRestricted(string calldata assetType) external view returns (bool);
    /// @notice Whether tokens of type index `typeIndex` are restricted.
    function isTypeIndexRestricted(uint32 typeIndex) external view returns (bool);
    /// @notice Whether `tokenId` is frozen (reverts for a missing token).
    function isFrozen(uint256 tokenId) external view returns (bool);
    /// @notice Whether `account` is on the allowlist.
    function isAllowed(address account) external view returns (bool);
    /// @notice The marketplace whose escrow counts as custody (zero until set).
    function marketplace() external view returns (address);
}
