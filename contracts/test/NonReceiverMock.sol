// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title NonReceiverMock
/// @notice Test-only contract that implements no token hooks at all.
contract NonReceiverMock {
    /// @notice A function so the contract has code and a callable surface.
    function ping() external pure returns (bool) {
        return true;
    }
}
