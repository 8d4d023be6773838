// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title DefaultAssetTypes
/// @notice The 29 asset types the deploy script registers, in registration order (index 1..29).
library DefaultAssetTypes {
    /// @notice Number of default types.
    uint256 internal constant COUNT = 29;

    /// @notice The default type names, in registration order.
    function names() internal pure returns (string[] memory list) {
        list = new string[](COUNT);
        list[0] = "Real Estate";
        list[1] = "Bond";
        list[2] = "Insurance Policy";
        list[3] = "Carbon Credit";
        list[4] = "Stock / Equity";
        list[5] = "Treasury";
        list[6] = "RECEIPT";
        list[7] = "Retail Product";
        list[8] = "Event Ticket";
        list[9] = "Membership Card";
        list[10] = "Gift Voucher";
        list[11] = "Other";
        list[12] = "Art";
        list[13] = "Commodity";
        list[14] = "Precious Metal";
        list[15] = "Vehicle";
        list[16] = "Invoice";
        list[17] = "Loan";
        list[18] = "Mortgage";
        list[19] = "Private Equity";
        list[20] = "Fund Share";
        list[21] = "Intellectual Property";
        list[22] = "Collectible";
        list[23] = "Wine";
        list[24] = "Watch";
        list[25] = "Jewelry";
        list[26] = "Music Royalty";
        list[27] = "Warehouse Receipt";
        list[28] = "Renewable Energy Certificate";
    }
}
