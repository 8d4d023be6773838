// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";

/// @title ActorMock
/// @notice Test-only smart account: forwards arbitrary calls, can refuse coins or tokens, and can
/// run one configured call (a re-entry attempt) when it receives coins or a token.
contract ActorMock is IERC721Receiver {
    /// @notice Emitted after the configured hook call ran.
    event HookCalled(bool success, bytes returnData);

    /// @notice Whether `receive` accepts coins.
    bool public acceptEther = true;
    /// @notice Whether `onERC721Received` accepts tokens.
    bool public acceptTokens = true;
    /// @notice Result of the last hook call.
    bool public hookSucceeded;
    /// @notice Return or revert data of the last hook call.
    bytes public hookReturnData;
    /// @notice How many times the hook ran.
    uint256 public hookCalls;

    address private _hookTarget;
    bytes private _hookData;

    /// @notice Sets whether coins are accepted.
    function setAcceptEther(bool accept) external {
        acceptEther = accept;
    }

    /// @notice Sets whether tokens are accepted.
    function setAcceptTokens(bool accept) external {
        acceptTokens = accept;
    }

    /// @notice Configures the call made (once) on the next receipt of coins or a token.
    function setHook(address target, bytes calldata data) external {
        _hookTarget = target;
        _hookData = data;
    }

    /// @notice Calls `target` with `data` and `value`, bubbling up a revert.
    function execute(
        address target,
        uint256 value,
        bytes calldata data
    ) external payable returns (bytes memory) {
        (bool ok, bytes memory ret) = target.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        return ret;
    }

    receive() external payable {
        if (!acceptEther) revert("ActorMock: no coins");
        _runHook();
    }

    /// @inheritdoc IERC721Receiver
    function onERC721Received(address, address, uint256, bytes calldata) external returns (bytes4) {
        if (!acceptTokens) revert("ActorMock: no tokens");
        _runHook();
        return IERC721Receiver.onERC721Received.selector;
    }

    function _runHook() private {
        address target = _hookTarget;
        if (target == address(0)) return;
        _hookTarget = address(0);
        (bool ok, bytes memory ret) = target.call(_hookData);
        hookSucceeded = ok;
        hookReturnData = ret;
        ++hookCalls;
        emit HookCalled(ok, ret);
    }
}
