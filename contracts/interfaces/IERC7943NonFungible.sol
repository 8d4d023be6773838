// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";

/// @title IERC7943NonFungible
/// @notice ERC-7943 (uRWA) for ERC-721 tokens: compliance checks (`canSend`, `canReceive`,
/// `canTransfer`), per-token freezing and an authorised forced transfer. ERC-165 id `0xbf1ef5fe`.
interface IERC7943NonFungible is IERC165 {
    /// @notice Emitted when `tokenId` is taken from `from` and given to `to` by `forcedTransfer`.
    event ForcedTransfer(address indexed from, address indexed to, uint256 indexed tokenId);

    /// @notice Emitted when the frozen status of `tokenId` held by `account` changes.
    event Frozen(address indexed account, uint256 indexed tokenId, bool indexed frozenStatus);

    /// @notice Thrown when `account` may not send tokens.
    error ERC7943CannotSend(address account);
    /// @notice Thrown when `account` may not receive a token (here: a token of a restricted type).
    error ERC7943CannotReceive(address account);
    /// @notice Thrown when a transfer is refused by the token's rules.
    error ERC7943CannotTransfer(address from, address to, uint256 tokenId);
    /// @notice Thrown when `tokenId`, held by `account`, is frozen.
    error ERC7943InsufficientUnfrozenBalance(address account, uint256 tokenId);

    /// @notice Moves `tokenId` from `from` to `to` regardless of freezing. Restricted in access.
    /// @return result true; reverts on failure
    function forcedTransfer(
        address from,
        address to,
        uint256 tokenId
    ) external returns (bool result);

    /// @notice Freezes or unfreezes `tokenId` held by `account`. Restricted in access.
    /// @return result true; reverts on failure
    function setFrozenTokens(
        address account,
        uint256 tokenId,
        bool frozenStatus
    ) external returns (bool result);

    /// @notice Whether `account` may send tokens. Never reverts.
    function canSend(address account) external view returns (bool allowed);

    /// @notice Whether `account` may receive tokens. Never reverts.
    function canReceive(address account) external view returns (bool allowed);

    /// @notice Whether `tokenId` is frozen (it may be true for an account that does not hold it).
    function getFrozenTokens(
        address account,
        uint256 tokenId
    ) external view returns (bool frozenStatus);

    /// @notice Whether the token's rules allow moving `tokenId` from `from` to `to` now. Never
    /// reverts; ownership and approvals are the base standard's business, not this check's.
    function canTransfer(
        address from,
        address to,
        uint256 tokenId
    ) external view returns (bool allowed);
}
