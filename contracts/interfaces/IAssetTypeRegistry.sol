// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title IAssetTypeRegistry
/// @notice Registry of the asset type names that tokens may carry. Names are exact and
/// case-sensitive; a type is identified by `keccak256(bytes(name))` and by a 1-based index in
/// registration order (the index is what AssetToken packs per token).
interface IAssetTypeRegistry {
    /// @notice Thrown when a type name is empty.
    error AssetTypeRegistry__EmptyName();
    /// @notice Thrown when a type name is longer than `MAX_NAME_LENGTH` bytes.
    error AssetTypeRegistry__NameTooLong(uint256 length, uint256 maxLength);
    /// @notice Thrown when a type name is already registered.
    error AssetTypeRegistry__AlreadyRegistered(string name);
    /// @notice Thrown when an index is outside `[1, typeCount()]`.
    error AssetTypeRegistry__IndexOutOfRange(uint256 index);

    /// @notice Emitted when a new asset type is registered.
    /// @param typeId keccak256 of the name
    /// @param index 1-based registration index
    /// @param name the exact type name
    /// @param registrar the account that registered it
    event AssetTypeRegistered(
        bytes32 indexed typeId,
        uint32 indexed index,
        string name,
        address indexed registrar
    );

    /// @notice Role allowed to register new types.
    function REGISTRAR_ROLE() external view returns (bytes32);

    /// @notice Maximum length of a type name in bytes.
    function MAX_NAME_LENGTH() external view returns (uint256);

    /// @notice Registers a new type name. Caller needs `REGISTRAR_ROLE`.
    /// @param name exact, case-sensitive name, 1 to MAX_NAME_LENGTH bytes
    /// @return typeId keccak256 of the name
    function registerType(string calldata name) external returns (bytes32 typeId);

    /// @notice Registers several names in one transaction (used at deploy). Caller needs `REGISTRAR_ROLE`.
    /// @param names names to register; each one must satisfy `registerType`'s rules
    function registerTypes(string[] calldata names) external;

    /// @notice Whether `name` is registered (exact match).
    function isRegistered(string calldata name) external view returns (bool);

    /// @notice The 1-based index of a registered type id; 0 when not registered.
    function indexOf(bytes32 typeId) external view returns (uint32);

    /// @notice The name registered at a 1-based index. Reverts when out of range.
    function typeAt(uint256 index) external view returns (string memory);

    /// @notice Number of registered types.
    function typeCount() external view returns (uint256);

    /// @notice All registered names, in registration order.
    function allTypes() external view returns (string[] memory);
}
