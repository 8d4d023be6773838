// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Vm} from "./Vm.sol";

/// @title TestBase
/// @notice A minimal stand-in for forge-std's Test: cheatcodes, assertions, `bound`, and the
/// invariant-target hooks (`targetContracts()`, `targetSelectors()`, `excludeSenders()`) that the
/// Foundry-compatible runner in Hardhat 3 reads from the test contract.
abstract contract TestBase {
    /// @notice Mirrors forge-std's FuzzSelector; the runner decodes `targetSelectors()` as this.
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    address[] private _targetedContracts;
    address[] private _excludedSenders;
    FuzzSelector[] private _targetedSelectors;

    // ---------------------------------------------------------------- invariant targeting

    /// @notice Contracts the invariant fuzzer may call.
    function targetContracts() public view returns (address[] memory) {
        return _targetedContracts;
    }

    /// @notice Functions the invariant fuzzer may call, per contract.
    function targetSelectors() public view returns (FuzzSelector[] memory) {
        return _targetedSelectors;
    }

    /// @notice Senders the invariant fuzzer must not use.
    function excludeSenders() public view returns (address[] memory) {
        return _excludedSenders;
    }

    function targetContract(address target) internal {
        _targetedContracts.push(target);
    }

    function targetSelector(FuzzSelector memory selector) internal {
        _targetedSelectors.push(selector);
    }

    function excludeSender(address sender) internal {
        _excludedSenders.push(sender);
    }

    // ---------------------------------------------------------------- helpers

    /// @notice Maps `x` into `[min, max]` uniformly enough for fuzzing (forge-std semantics:
    /// values already in range are kept).
    function bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
        require(min <= max, "bound: min > max");
        if (x >= min && x <= max) return x;
        uint256 size = max - min;
        if (size == type(uint256).max) return x;
        return min + (x % (size + 1));
    }

    // ---------------------------------------------------------------- assertions

    function fail(string memory message) internal pure {
        revert(string.concat("assertion failed: ", message));
    }

    function assertTrue(bool condition, string memory message) internal pure {
        if (!condition) fail(message);
    }

    function assertFalse(bool condition, string memory message) internal pure {
        if (condition) fail(message);
    }

    function assertEq(uint256 a, uint256 b, string memory message) internal pure {
        if (a != b) fail(string.concat(message, ": ", _toString(a), " != ", _toString(b)));
    }

    function assertEq(address a, address b, string memory message) internal pure {
        if (a != b) fail(message);
    }

    function assertEq(bytes32 a, bytes32 b, string memory message) internal pure {
        if (a != b) fail(message);
    }

    function assertEq(string memory a, string memory b, string memory message) internal pure {
        if (keccak256(bytes(a)) != keccak256(bytes(b)))
            fail(string.concat(message, ': "', a, '" != "', b, '"'));
    }

    function assertLe(uint256 a, uint256 b, string memory message) internal pure {
        if (a > b) fail(string.concat(message, ": ", _toString(a), " > ", _toString(b)));
    }

    function _toString(uint256 value) private pure returns (string memory) {
        if (value == 0) return "0";
        uint256 digits;
        for (uint256 v = value; v != 0; v /= 10) ++digits;
        bytes memory out = new bytes(digits);
        for (; value != 0; value /= 10) out[--digits] = bytes1(uint8(48 + (value % 10)));
        return string(out);
    }
}
