import { sql } from "drizzle-orm";
import { isError } from "ethers";
import type { AuditOrigin } from "../audit/audit-writer.js";
import { wallets } from "../db/schema/index.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import type { AppContext } from "../context.js";
import { marketplaceInterface } from "../chain/contracts/bindings.js";
import { revertReason } from "../chain/contracts/revert-reasons.js";
import { NotFoundError, TransactionFailedError, ValidationError } from "../errors.js";
import { parseAddress, parseId } from "../shared/parse-input.js";
import { sendOperatorTransaction } from "./operator-transactions.js";

/** Result of a rescue. */
export interface RescuedToken {
  success: true;
  txHash: string;
  tokenId: string;
  toAddress: string;
}

/**
 * Returns a token the marketplace holds without a listing (it arrived by a plain `transferFrom`,
 * which creates none) to the address the operator names, with the operator account's
 * `rescueToken` (it holds the marketplace's `OPERATOR_ROLE` since deploy). Checked before
 * anything is sent, so a refused request changes nothing:
 * - a token that does not exist: 404 `Asset not found`;
 * - a token the marketplace does not hold: 400 `Token is not held by the marketplace`;
 * - a token backing a listing stored as active, expired or not: 400
 *   `Token backs an active listing (listing <id>)` (its seller delists or reclaims it).
 *
 * Audited around its broadcast (docs/audit-log.md "Acts on chain"): `operator_tx.attempted`
 * before, then `marketplace.token_rescued` once mined (or a failure row), filed under the
 * organization whose wallet receives the token, when one does.
 *
 * @throws ValidationError, NotFoundError, RpcUnavailableError, TransactionFailedError
 */
export async function rescueMarketplaceToken(
  ctx: AppContext,
  input: { tokenId: string | number; toAddress: string },
  origin: AuditOrigin,
): Promise<RescuedToken> {
  const tokenId = parseId(input.tokenId, "tokenId");
  const to = parseAddress(input.toAddress, "toAddress");
  const marketplace = ctx.contracts.marketplace;
  if (to.toLowerCase() === marketplace.toLowerCase())
    throw new ValidationError("Invalid field: toAddress (must not be the marketplace)");
  const reader = ctx.engine.reader;
  const owner = await reader.ownerOf(tokenId);
  if (owner === undefined) throw new NotFoundError("Asset not found");
  if (owner.toLowerCase() !== marketplace.toLowerCase())
    throw new ValidationError("Token is not held by the marketplace");
  const listingId = await reader.activeListingOf(tokenId);
  if (listingId !== 0n)
    throw new ValidationError(`Token backs an active listing (listing ${listingId})`);
  const [receiver] = await ctx.database.db
    .select({ orgId: wallets.orgId })
    .from(wallets)
    .where(sql`lower(${wallets.address}) = ${to.toLowerCase()}`)
    .limit(1);
  const receipt = await sendOperatorTransaction(
    ctx,
    {
      to: marketplace,
      data: marketplaceInterface.encodeFunctionData("rescueToken", [tokenId, to]),
    },
    "a marketplace rescue",
    {
      origin,
      entry: {
        orgId: receiver?.orgId ?? null,
        action: AUDIT_ACTIONS.marketplaceTokenRescued,
        target: `token:${tokenId.toString()}`,
        changes: { tokenId: tokenId.toString(), toAddress: to },
      },
    },
  ).catch((error: unknown) => {
    // Gas estimation reverted (say, the operator lacks OPERATOR_ROLE): name the contract's reason.
    const cause = error instanceof TransactionFailedError ? error.cause : undefined;
    if (isError(cause, "CALL_EXCEPTION") && typeof cause.data === "string")
      throw new TransactionFailedError(revertReason(cause.data), { cause });
    throw error;
  });
  ctx.logger.info(
    { tokenId: tokenId.toString(), to, txHash: receipt.hash },
    "marketplace token rescued by operator",
  );
  return { success: true, txHash: receipt.hash, tokenId: tokenId.toString(), toAddress: to };
}
