// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";

/// @title ERC721ReceiverMock
/// @notice Test-only ERC-721 receiver that returns a configurable value or fails in a configurable way
/// (modelled on OpenZeppelin's mock of the same name).
contract ERC721ReceiverMock is IERC721Receiver {
    /// @notice How `onERC721Received` behaves.
    enum RevertType {
        None,
        RevertWithoutMessage,
        RevertWithMessage,
        RevertWithCustomError,
        Panic
    }

    /// @notice Thrown when configured to fail with a custom error.
    error CustomError(bytes4 retval);

    /// @notice Emitted on every accepted receive.
    event Received(address operator, address from, uint256 tokenId, bytes data, uint256 gas);

    bytes4 private immutable _retval;
    RevertType private immutable _error;

    constructor(bytes4 retval, RevertType error) {
        _retval = retval;
        _error = error;
    }

    /// @inheritdoc IERC721Receiver
    function onERC721Received(
        address operator,
        address from,
        uint256 tokenId,
        bytes calldata data
    ) external returns (bytes4) {
        if (_error == RevertType.RevertWithoutMessage) {
            revert();
        } else if (_error == RevertType.RevertWithMessage) {
            revert("ERC721ReceiverMock: reverting");
        } else if (_error == RevertType.RevertWithCustomError) {
            revert CustomError(_retval);
        } else if (_error == RevertType.Panic) {
            uint256 a = uint256(0) / uint256(0);
            a;
        }
        emit Received(operator, from, tokenId, data, gasleft());
        return _retval;
    }
}
