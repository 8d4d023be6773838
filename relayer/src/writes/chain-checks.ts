import type { AppContext } from "../context.js";
import { LISTING_STATE } from "../chain/contracts.js";
import { ValidationError } from "../errors.js";
import type { OrgWallet } from "./wallet-of-org.js";

/**
 * Checks the write kinds share before building a call: what the chain would refuse is answered
 * with a 400 here, before anything is signed or any nonce is used.
 */

/** Refuses tokens the wallet does not hold (400, nothing sent). */
export async function requireHeld(
  ctx: AppContext,
  wallet: OrgWallet,
  tokenId: bigint,
): Promise<void> {
  const owner = await ctx.tx.reader.ownerOf(tokenId);
  if (owner === undefined) throw new ValidationError(`Token ${tokenId} does not exist`);
  if (owner.toLowerCase() !== wallet.address.toLowerCase()) {
    throw new ValidationError(`Token ${tokenId} is not held by this organization's wallet`);
  }
}

/** Refuses inactive (expired, sold, cancelled, unknown) listings with the spec's 400. */
export async function activeListing(ctx: AppContext, listingId: bigint) {
  const listing = await ctx.tx.reader.listing(listingId);
  if (listing === undefined || listing.effectiveState !== LISTING_STATE.Active)
    throw new ValidationError("Listing not active");
  return listing;
}
