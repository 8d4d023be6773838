// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IAssetTypeRegistry} from "./interfaces/IAssetTypeRegistry.sol";

/// @title AssetTypeRegistry
/// @notice Registry of exact, case-sensitive asset type names. A type is keyed by
/// `keccak256(bytes(name))` and gets a 1-based index in registration order; the index is what
/// AssetToken packs per token. Types can only be added, never removed or renamed, so an index
/// stays valid for the life of every token that refers to it.
contract AssetTypeRegistry is IAssetTypeRegistry, AccessControl {
    /// @inheritdoc IAssetTypeRegistry
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");

    /// @inheritdoc IAssetTypeRegistry
    uint256 public constant MAX_NAME_LENGTH = 64;

    /// @dev Names in registration order; `_names[i]` has index `i + 1`.
    string[] private _names;

    /// @dev Type id => 1-based index (0 = not registered).
    mapping(bytes32 typeId => uint32 index) private _indexOf;

    /// @param admin account granted `DEFAULT_ADMIN_ROLE` and `REGISTRAR_ROLE`
    constructor(address admin) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(REGISTRAR_ROLE, admin);
    }

    /// @inheritdoc IAssetTypeRegistry
    function registerType(
        string calldata name
    ) external onlyRole(REGISTRAR_ROLE) returns (bytes32 typeId) {
        typeId = _register(name);
    }

    /// @inheritdoc IAssetTypeRegistry
    function registerTypes(string[] calldata names) external onlyRole(REGISTRAR_ROLE) {
        uint256 length = names.length;
        for (uint256 i = 0; i < length; ++i) {
            _register(names[i]);
        }
    }

    /// @inheritdoc IAssetTypeRegistry
    function isRegistered(string calldata name) external view returns (bool) {
        return _indexOf[keccak256(bytes(name))] != 0;
    }

    /// @inheritdoc IAssetTypeRegistry
    function indexOf(bytes32 typeId) external view returns (uint32) {
        return _indexOf[typeId];
    }

    /// @inheritdoc IAssetTypeRegistry
    function typeAt(uint256 index) external view returns (string memory) {
        if (index == 0 || index > _names.length) revert AssetTypeRegistry__IndexOutOfRange(index);
        return _names[index - 1];
    }

    /// @inheritdoc IAssetTypeRegistry
    function typeCount() external view returns (uint256) {
        return _names.length;
    }

    /// @inheritdoc IAssetTypeRegistry
    function allTypes() external view returns (string[] memory) {
        return _names;
    }

    /// @dev Validates and stores one name; emits {AssetTypeRegistered}.
    function _register(string calldata name) private returns (bytes32 typeId) {
        uint256 length = bytes(name).length;
        if (length == 0) revert AssetTypeRegistry__EmptyName();
        if (length > MAX_NAME_LENGTH)
            revert AssetTypeRegistry__NameTooLong(length, MAX_NAME_LENGTH);
        typeId = keccak256(bytes(name));
        if (_indexOf[typeId] != 0) revert AssetTypeRegistry__AlreadyRegistered(name);
        _names.push(name);
        // The index is the new array length; uint32 allows 4.29e9 types, far beyond what the
        // registrar (an operator, one transaction per batch) could ever register.
        uint32 index = uint32(_names.length);
        _indexOf[typeId] = index;
        emit AssetTypeRegistered(typeId, index, name, _msgSender());
    }
}
