import type { AppContext } from "../context.js";
import { LISTING_STATE } from "../chain/contracts/bindings.js";
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
  const owner = await ctx.engine.reader.ownerOf(tokenId);
  if (owner === undefined) throw new ValidationError(`Token ${tokenId} does not exist`);
  if (owner.toLowerCase() !== wallet.address.toLowerCase()) {
    throw new ValidationError(`Token ${tokenId} is not held by this organization's wallet`);
  }
}

/** Refuses inactive (expired, sold, cancelled, unknown) listings with the spec's 400. */
export async function activeListing(ctx: AppContext, listingId: bigint) {
  const listing = await ctx.engine.reader.listing(listingId);
  if (listing === undefined || listing.effectiveState !== LISTING_STATE.Active)
    throw new ValidationError("Listing not active");
  return listing;
}

/** The API's words for AssetToken's compliance rules (README "Compliance controls"). */
export const COMPLIANCE_REASONS = {
  paused: "Transfers are paused",
  frozen: "Asset is frozen",
  recipient: "Recipient is not allowed to hold this asset type",
} as const;

/**
 * Refuses a move of `tokenId` from `from` to `to` that AssetToken's rules would revert (400 with
 * the rule's words, nothing sent): one `canTransfer` call when the move is allowed, and the
 * views that name the rule when it is not.
 */
export async function requireTransferAllowed(
  ctx: AppContext,
  from: string,
  to: string,
  tokenId: bigint,
): Promise<void> {
  const reader = ctx.engine.reader;
  if (await reader.canTransfer(from, to, tokenId)) return;
  if (await reader.paused()) throw new ValidationError(COMPLIANCE_REASONS.paused);
  if (await reader.isFrozen(tokenId)) throw new ValidationError(COMPLIANCE_REASONS.frozen);
  throw new ValidationError(COMPLIANCE_REASONS.recipient);
}

/** Refuses a redemption AssetToken would revert: paused, or the token frozen (400). */
export async function requireRedeemAllowed(ctx: AppContext, tokenId: bigint): Promise<void> {
  const reader = ctx.engine.reader;
  const [paused, frozen] = await Promise.all([reader.paused(), reader.isFrozen(tokenId)]);
  if (paused) throw new ValidationError(COMPLIANCE_REASONS.paused);
  if (frozen) throw new ValidationError(COMPLIANCE_REASONS.frozen);
}

/**
 * Refuses mints of `assetTypes` to `to` that AssetToken would revert: paused, or a restricted
 * type and a recipient off the allowlist (400). The pause and each distinct type are read once per
 * block (`chain/head-reads.ts`); the allowlist only for a restricted type.
 */
export async function requireMintAllowed(
  ctx: AppContext,
  to: string,
  assetTypes: readonly string[],
): Promise<void> {
  const head = ctx.engine.head;
  const types = [...new Set(assetTypes)];
  const [paused, ...restricted] = await Promise.all([
    head.paused(),
    ...types.map((name) => head.isTypeRestricted(name)),
  ]);
  if (paused) throw new ValidationError(COMPLIANCE_REASONS.paused);
  if (restricted.some(Boolean) && !(await ctx.engine.reader.isAllowed(to)))
    throw new ValidationError(COMPLIANCE_REASONS.recipient);
}
