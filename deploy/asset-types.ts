/**
 * The asset types registered when the contracts are deployed, in registration order.
 * Names are exact and case-sensitive (`RECEIPT` is upper case on purpose): the registry
 * identifies a type by `keccak256(bytes(name))`. The contract tests reuse this list
 * (test/contracts/helpers/asset-types.ts).
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
] as const;

/** One of the default asset type names. */
export type DefaultAssetType = (typeof DEFAULT_ASSET_TYPES)[number];
