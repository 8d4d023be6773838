import type { AppContext } from "../context.js";
import { LISTING_STATE } from "../chain/contracts/bindings.js";
import { ValidationError } from "../errors.js";
import { COMPLIANCE_REASONS, type ComplianceReason } from "../domain/write-outcome.js";

export { COMPLIANCE_REASONS, type ComplianceReason };
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

/**
 * What AssetToken's rules look at, as far as a check read it; a fact left out is false (a mint
 * has no frozen token; a forced transfer ignores the pause and the freeze).
 */
export interface ComplianceFacts {
  /** Transfers are paused. */
  paused?: boolean;
  /** The token is frozen. */
  frozen?: boolean;
  /** The asset type (any of a mint's types) is restricted. */
  restricted?: boolean;
  /** The recipient is on the allowlist (looked at only for a restricted type). */
  recipientAllowed?: boolean;
}

/**
 * The rule that refuses a move, in AssetToken's order (`_refusal`: the pause, then the freeze,
 * then a restricted type's allowlist), or undefined when none does.
 *
 * @example
 * complianceRefusal({ paused: false, frozen: true }); // "Asset is frozen"
 * complianceRefusal({ restricted: true, recipientAllowed: true }); // undefined
 */
export function complianceRefusal(facts: ComplianceFacts): ComplianceReason | undefined {
  if (facts.paused === true) return COMPLIANCE_REASONS.paused;
  if (facts.frozen === true) return COMPLIANCE_REASONS.frozen;
  if (facts.restricted === true && facts.recipientAllowed !== true)
    return COMPLIANCE_REASONS.recipient;
  return undefined;
}

/** Throws the 400 of a refusal; nothing when the move is allowed. */
function refuse(reason: ComplianceReason | undefined): void {
  if (reason !== undefined) throw new ValidationError(reason);
}

/**
 * Refuses a move of `tokenId` from `from` to `to` that AssetToken's rules would revert (400 with
 * the rule's words, nothing sent): one `canTransfer` call when the move is allowed, and the
 * views that name the rule when it is not (in the rules' order, no more than needed: refused
 * while neither paused nor frozen, it is the recipient).
 */
export async function requireTransferAllowed(
  ctx: AppContext,
  from: string,
  to: string,
  tokenId: bigint,
): Promise<void> {
  const reader = ctx.engine.reader;
  if (await reader.canTransfer(from, to, tokenId)) return;
  const paused = await reader.paused();
  const frozen = !paused && (await reader.isFrozen(tokenId));
  throw new ValidationError(complianceRefusal({ paused, frozen }) ?? COMPLIANCE_REASONS.recipient);
}

/** Refuses a redemption AssetToken would revert: paused, or the token frozen (400). */
export async function requireRedeemAllowed(ctx: AppContext, tokenId: bigint): Promise<void> {
  const reader = ctx.engine.reader;
  const [paused, frozen] = await Promise.all([reader.paused(), reader.isFrozen(tokenId)]);
  refuse(complianceRefusal({ paused, frozen }));
}

/**
 * Refuses mints of `assetTypes` to `to` that AssetToken would revert: paused, or a restricted
 * type and a recipient off the allowlist (400). The pause and each distinct type are read once per
 * block (`chain/head-reads.ts`); the allowlist only for a restricted type, when not paused.
 */
export async function requireMintAllowed(
  ctx: AppContext,
  to: string,
  assetTypes: readonly string[],
): Promise<void> {
  const head = ctx.engine.head;
  const types = [...new Set(assetTypes)];
  const [paused, ...restrictedTypes] = await Promise.all([
    head.paused(),
    ...types.map((name) => head.isTypeRestricted(name)),
  ]);
  const restricted = restrictedTypes.some(Boolean);
  const recipientAllowed =
    paused || !restricted ? undefined : await ctx.engine.reader.isAllowed(to);
  refuse(complianceRefusal({ paused, restricted, recipientAllowed }));
}
