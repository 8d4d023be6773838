import { z } from "zod";
import { coinAmount, weiAmount } from "./amount.ts";
import { timestamp } from "./timestamp.ts";

/** An indexed asset (token) as the read API returns it (docs/read-api.md). */
export const assetRecord = z.object({
  tokenId: z.string(),
  assetType: z.string().nullable(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  image: z.string().nullable(),
  externalUrl: z.string().nullable(),
  // The CID the token stores on chain (the caller's own `ipfsHash` when one was given).
  ipfsHash: z.string(),
  // The metadata document this service wrote for the token, served at `/ipfs/{cid}` (null for a
  // token minted elsewhere), and whether the IPFS target holds its pin yet (pins are retried).
  metadataCid: z.string().nullable(),
  metadataPinned: z.boolean().nullable(),
  stakedAmount: coinAmount,
  stakedAmountWei: weiAmount,
  // The current on-chain owner: the marketplace while listed, the zero address once redeemed.
  owner: z.string(),
  minter: z.string(),
  // No issuer organization id: public reads would map custodial wallets to our customers' ids
  // (docs/api-decisions.md).
  hasPassword: z.boolean(),
  listing: z
    .object({
      listingId: z.string(),
      priceInCOIN: coinAmount,
      price: coinAmount.describe("Alias of `priceInCOIN`, kept until /api/v2"),
      priceWei: weiAmount,
      expiresAt: timestamp,
    })
    .nullable(),
  mintTxHash: z.string(),
  mintBlock: z.number().int(),
  mintedAt: timestamp,
  updatedAt: timestamp,
  redeemed: z.boolean(),
  // Compliance (docs/contracts.md "Compliance controls"): frozen by the operator, with the reason it gave;
  // of a restricted type (only allowlisted wallets may hold it).
  frozen: z.boolean(),
  frozenReason: z.string().nullable(),
  restricted: z.boolean(),
});

/** An indexed asset. */
export type AssetRecord = z.output<typeof assetRecord>;

/** A registered asset type (`GET /api/v1/asset-types`). */
export const assetTypeRecord = z.object({
  name: z.string(),
  typeId: z.string(),
  index: z.number().int(),
  registrar: z.string(),
  txHash: z.string(),
  registeredAt: timestamp,
  /** Only allowlisted wallets may hold tokens of this type. */
  restricted: z.boolean(),
});

/** A registered asset type. */
export type AssetTypeRecord = z.output<typeof assetTypeRecord>;
