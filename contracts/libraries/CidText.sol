// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title CidText
/// @notice Renders an IPFS CID, stored as parts (32-byte digest, version, codec, multihash code),
/// as its canonical text: CIDv0 as base58btc (`Qm...`), CIDv1 as multibase base32 lower-case
/// (`b...`) of `<varint version><varint codec><varint hashCode><varint 32><digest>`.
/// @dev View-only helpers; gas is not a concern here, clarity is.
library CidText {
    /// @notice Multicodec of dag-pb, the only codec a CIDv0 can have.
    uint64 internal constant DAG_PB = 0x70;
    /// @notice Multihash code of sha2-256, the only hash a CIDv0 can have.
    uint16 internal constant SHA2_256 = 0x12;
    /// @notice Length in bytes of every digest stored here.
    uint8 internal constant DIGEST_LENGTH = 32;

    bytes private constant _BASE58_ALPHABET =
        "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    bytes private constant _BASE32_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

    /// @notice Whether the parts form a CID this library can render: version 0 or 1, non-zero
    /// digest, and for version 0 the fixed dag-pb / sha2-256 pair.
    function isValid(
        bytes32 digest,
        uint8 version,
        uint64 codec,
        uint16 hashCode
    ) internal pure returns (bool) {
        if (digest == bytes32(0) || version > 1) return false;
        if (version == 0) return codec == DAG_PB && hashCode == SHA2_256;
        return true;
    }

    /// @notice The CID's text form. Assumes `isValid` holds for the parts.
    function toText(
        bytes32 digest,
        uint8 version,
        uint64 codec,
        uint16 hashCode
    ) internal pure returns (string memory) {
        if (version == 0) {
            // A CIDv0 is the bare multihash <0x12><0x20><digest>, in base58btc.
            return string(_base58(abi.encodePacked(bytes1(0x12), bytes1(DIGEST_LENGTH), digest)));
        }
        bytes memory raw = abi.encodePacked(
            _varint(version),
            _varint(codec),
            _varint(hashCode),
            _varint(DIGEST_LENGTH),
            digest
        );
        return string.concat("b", string(_base32(raw)));
    }

    /// @dev Unsigned LEB128 (multiformats unsigned-varint) encoding of `value`.
    function _varint(uint256 value) private pure returns (bytes memory out) {
        uint256 length = 1;
        for (uint256 v = value >> 7; v != 0; v >>= 7) {
            ++length;
        }
        out = new bytes(length);
        for (uint256 i = 0; i < length; ++i) {
            uint256 group = value & 0x7f;
            value >>= 7;
            out[i] = bytes1(uint8(value == 0 ? group : group | 0x80));
        }
    }

    /// @dev RFC 4648 base32, lower-case alphabet, no padding.
    function _base32(bytes memory input) private pure returns (bytes memory out) {
        // ceil(bits / 5) characters.
        out = new bytes((input.length * 8 + 4) / 5);
        uint256 buffer;
        uint256 bits;
        uint256 o;
        for (uint256 i = 0; i < input.length; ++i) {
            buffer = (buffer << 8) | uint8(input[i]);
            bits += 8;
            while (bits >= 5) {
                bits -= 5;
                out[o++] = _BASE32_ALPHABET[(buffer >> bits) & 31];
            }
            // Keep only the bits not yet emitted so the buffer never grows.
            buffer &= (1 << bits) - 1;
        }
        if (bits > 0) out[o] = _BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
    }

    /// @dev Base58btc (Bitcoin alphabet) by repeated division of a big-endian digit array.
    function _base58(bytes memory input) private pure returns (bytes memory) {
        uint256 zeros;
        while (zeros < input.length && input[zeros] == 0) ++zeros;
        // log(256) / log(58) < 1.38, so this many base58 digits always suffice.
        uint256 size = ((input.length - zeros) * 138) / 100 + 1;
        uint8[] memory digits = new uint8[](size);
        uint256 used;
        for (uint256 i = zeros; i < input.length; ++i) {
            uint256 carry = uint8(input[i]);
            uint256 k;
            for (; carry != 0 || k < used; ++k) {
                uint256 j = size - 1 - k;
                carry += 256 * uint256(digits[j]);
                digits[j] = uint8(carry % 58);
                carry /= 58;
            }
            used = k;
        }
        uint256 start = size - used;
        while (start < size && digits[start] == 0) ++start;
        bytes memory out = new bytes(zeros + size - start);
        for (uint256 i = 0; i < zeros; ++i) out[i] = "1";
        for (uint256 i = start; i < size; ++i) out[zeros + i - start] = _BASE58_ALPHABET[digits[i]];
        return out;
    }
}
