// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC721} from "../vendor/openzeppelin/ERC721.sol";

/// @title PlainERC721
/// @notice Test-only reference: a bare OpenZeppelin ERC-721 with sequential ids, to compare mint gas.
contract PlainERC721 is ERC721 {
    uint256 private _nextId = 1;

    constructor() ERC721("Plain", "PLN") {}

    /// @notice Mints the next id to `to`.
    function mint(address to) external returns (uint256 tokenId) {
        tokenId = _nextId;
        unchecked {
            // One id per call; 2^256 calls cannot happen.
            _nextId = tokenId + 1;
        }
        _mint(to, tokenId);
    }
}
