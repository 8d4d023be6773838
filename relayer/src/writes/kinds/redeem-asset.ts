import { z } from "zod";
import { assetTokenInterface } from "../../chain/contracts/bindings.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import { requireRedeemAllowed } from "../chain-checks.js";
import { formatCoin } from "../../shared/coin-amount.js";
import { WRITE_LIMITS } from "../limits.js";
import { idField, parseId, textField } from "../../shared/parse-input.js";
import { receiptFactsSchema } from "../../chain/contracts/receipt-events.js";
import { confirmedResult, defineWriteKind, writeResult, WRITE_OPTIONS } from "./write-kind.js";

/** Body of redeem-asset. */
export const redeemRequest = z.strictObject({
  ...WRITE_OPTIONS,
  tokenId: idField,
  password: textField(WRITE_LIMITS.passwordMax)
    .optional()
    .describe("required when the asset was issued with a password"),
});

/** Success body of redeem-asset. */
export const redeemResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  tokenId: z.string(),
  stakeReturned: z.string().describe("the stake paid back to the org wallet, in COIN"),
});

/**
 * What a redemption's response needs: the token, and its stake as read before sending (the
 * receipt's `stakeWei`, the stake actually paid out, takes precedence).
 */
export const redeemContext = z.object({ tokenId: z.string(), stakeReturned: z.string() });

type RedeemContext = z.output<typeof redeemContext>;

/** A confirmed redemption's stored result. */
export const redeemResult = writeResult(redeemContext, receiptFactsSchema);

/**
 * `POST /api/v1/write/redeem-asset`: burns a token the org's wallet holds with `redeem(tokenId)`;
 * the contract pays the token's stake back to the wallet. Checked before anything is sent:
 * - a token the wallet does not hold (never minted, burnt, another organization's): 404
 *   `Asset not found`, so other organizations' token ids cannot be probed;
 * - the org's own token in marketplace escrow: 400, delist it first;
 * - a token with a password: the body's `password` must match the hash stored on chain (the
 *   contract's `checkPassword`), else 400 `Invalid password`. The contract's `redeem` does not
 *   check it (the custodial wallet is the owner); the service does, because redeeming cannot be
 *   undone (docs/api-decisions.md).
 */
export const redeemAsset = defineWriteKind({
  kind: "redeem-asset",
  path: "/api/v1/write/redeem-asset",
  summary: "Redeem (burn) an asset; its stake returns to the org wallet",
  scopes: ["write:issue"],
  request: redeemRequest,
  response: redeemResponse,
  context: redeemContext,
  docs: {
    operationId: "redeemAsset",
    description:
      "Burns a token held by the custodial wallet; the contract pays its stake back to the " +
      "wallet. A token issued with a password needs that `password`. The asset stays readable " +
      "with `redeemed: true`. Another organization's token answers 404.",
    errors: {
      400: [
        "Invalid password",
        "Asset is listed on the marketplace (listing 3): delist it first",
        "Missing required field: tokenId",
        "Asset is frozen",
        "Transfers are paused",
      ],
      404: ["Asset not found"],
    },
  },
  async prepare(ctx, wallet, input) {
    const tokenId = parseId(input.tokenId, "tokenId");
    const reader = ctx.engine.reader;
    const owner = await reader.ownerOf(tokenId);
    if (owner?.toLowerCase() !== wallet.address.toLowerCase()) {
      if (owner?.toLowerCase() === ctx.contracts.marketplace.toLowerCase()) {
        const listingId = await reader.activeListingOf(tokenId);
        const listing = listingId === 0n ? undefined : await reader.listing(listingId);
        if (listing?.seller.toLowerCase() === wallet.address.toLowerCase())
          throw new ValidationError(
            `Asset is listed on the marketplace (listing ${listingId}): delist it first`,
          );
      }
      throw new NotFoundError("Asset not found");
    }
    await requireRedeemAllowed(ctx, tokenId);
    if (await reader.hasPassword(tokenId)) {
      if (input.password === undefined || !(await reader.checkPassword(tokenId, input.password)))
        throw new ValidationError("Invalid password");
    }
    const context: RedeemContext = {
      tokenId: tokenId.toString(),
      stakeReturned: formatCoin(await reader.stakeOf(tokenId)),
    };
    const data = assetTokenInterface.encodeFunctionData("redeem", [tokenId]);
    return [{ to: ctx.contracts.assetToken, data, value: 0n, context }];
  },
  respond(row): z.output<typeof redeemResponse> {
    const { result: r, txHash } = confirmedResult(row, redeemResult);
    return {
      success: true,
      txHash,
      tokenId: r.tokenId,
      stakeReturned: r.stakeWei === undefined ? r.stakeReturned : formatCoin(BigInt(r.stakeWei)),
    };
  },
});
