import { z } from "zod";
import { coinAmount, weiAmount } from "./amount.ts";
import { timestamp } from "./timestamp.ts";

/** Listing states reported by the read API (an active listing past `expiresAt` is `expired`). */
export const LISTING_STATES = ["active", "sold", "cancelled", "expired"] as const;

/** One listing state. */
export type ListingState = (typeof LISTING_STATES)[number];

/** A marketplace listing as the read API returns it (docs/read-api.md). */
export const listingRecord = z.object({
  listingId: z.string(),
  tokenId: z.string(),
  seller: z.string(),
  buyer: z.string().nullable(),
  /** Listing price in native coin, as the specification's listing resource names it. */
  priceInCOIN: coinAmount,
  price: coinAmount.describe("Alias of `priceInCOIN`, kept until /api/v2"),
  priceWei: weiAmount,
  /** Days the listing runs, from `listedAt` to `expiresAt` (the list write's `durationDays`). */
  durationDays: z.number().int(),
  state: z.enum(LISTING_STATES),
  listedAt: timestamp,
  expiresAt: timestamp,
  soldAt: timestamp.nullable(),
  closedAt: timestamp.nullable(),
  txHash: z.string(),
  closeTxHash: z.string().nullable(),
});

/** A marketplace listing. */
export type ListingRecord = z.output<typeof listingRecord>;
