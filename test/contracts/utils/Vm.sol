// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title Vm
/// @notice The subset of the Foundry-compatible cheatcodes (served by EDR in Hardhat 3's Solidity
/// test runner) that these tests use.
interface Vm {
    function prank(address msgSender) external;
    function startPrank(address msgSender) external;
    function stopPrank() external;
    function deal(address account, uint256 newBalance) external;
    function warp(uint256 newTimestamp) external;
    function expectRevert() external;
    function expectRevert(bytes4 revertData) external;
    function expectRevert(bytes calldata revertData) external;
    function assume(bool condition) external pure;
    function label(address account, string calldata newLabel) external;
    function addr(uint256 privateKey) external pure returns (address);
}
