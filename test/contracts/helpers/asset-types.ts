/**
 * The 29 default asset types, in registration order, copied from the contracts issue. Kept apart
 * from deploy/asset-types.ts on purpose: it is the oracle the registry test checks the deployed
 * list (contracts/libraries/DefaultAssetTypes.sol) against, so a slip in either is caught.
 */
export const DEFAULT_ASSET_TYPES = [
  "Real Estate",
  "Bond",
  "Insurance Policy",
  "Carbon Credit",
  "Stock / Equity",
  "Treasury",
  "RECEIPT",
  "Retail Product",
  "Event Ticket",
  "Membership Card",
  "Gift Voucher",
  "Other",
  "Art",
  "Commodity",
  "Precious Metal",
  "Vehicle",
  "Invoice",
  "Loan",
  "Mortgage",
  "Private Equity",
  "Fund Share",
  "Intellectual Property",
  "Collectible",
  "Wine",
  "Watch",
  "Jewelry",
  "Music Royalty",
  "Warehouse Receipt",
  "Renewable Energy Certificate",
];
