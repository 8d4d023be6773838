import { z } from "zod";
import { LISTING_STATE, marketplaceInterface } from "../../chain/contracts/bindings.js";
import { ValidationError } from "../../errors.js";
import { requireTransferAllowed } from "../chain-checks.js";
import { idField, parseId } from "../../shared/parse-input.js";
import { receiptFactsSchema } from "../../chain/contracts/receipt-events.js";
import { confirmedResult, defineWriteKind, writeResult, WRITE_OPTIONS } from "./write-kind.js";

/** Body of marketplace/delist. */
export const delistRequest = z.strictObject({
  ...WRITE_OPTIONS,
  listingId: idField,
});

/** Success body of marketplace/delist. */
export const delistResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  listingId: z.string(),
  tokenId: z.string(),
  reason: z
    .enum(["cancelled", "expired"])
    .describe("cancelled: an active listing; expired: an expired listing's token taken back"),
});

/** What a delisting's response needs: which listing, its token, and why it ends. */
export const delistContext = z.object({
  listingId: z.string(),
  tokenId: z.string(),
  reason: z.enum(["cancelled", "expired"]),
});

type DelistContext = z.output<typeof delistContext>;

/**
 * A confirmed delisting's stored result. Rows from before expired listings could be reclaimed
 * have neither `reason` nor the receipt's `delistReason`: they were cancellations.
 */
export const delistResult = writeResult(
  delistContext.partial({ reason: true }),
  receiptFactsSchema,
);

/**
 * `POST /api/v1/write/marketplace/delist`: seller only (400 otherwise, nothing sent). An active
 * listing is cancelled (`delist`); an expired one its seller has not reclaimed yet gets its token
 * back with `reclaim`, since the contract no longer accepts `delist` once a listing has expired
 * and the token would otherwise stay in escrow for good. The answer is the same; `reason` says
 * which.
 */
export const delist = defineWriteKind({
  kind: "delist",
  path: "/api/v1/write/marketplace/delist",
  summary:
    "Cancel a listing, or take back the token of an expired one (seller only); the asset returns to the wallet",
  scopes: ["write:marketplace"],
  request: delistRequest,
  response: delistResponse,
  context: delistContext,
  docs: {
    operationId: "delistAsset",
    description:
      "An active listing is cancelled (`reason: cancelled`). An expired listing of the caller " +
      "that was not reclaimed yet has its token returned from escrow (`reason: expired`).",
    errors: {
      400: [
        "Listing not active",
        "Only the seller can delist this listing",
        "Recipient is not allowed to hold this asset type",
      ],
    },
  },
  async prepare(ctx, wallet, input) {
    const listingId = parseId(input.listingId, "listingId");
    const listing = await ctx.engine.reader.listing(listingId);
    // Stored Active and past its expiry: reclaimable, by its seller only.
    const expired =
      listing?.state === LISTING_STATE.Active && listing.effectiveState === LISTING_STATE.Expired;
    if (listing === undefined || (listing.effectiveState !== LISTING_STATE.Active && !expired))
      throw new ValidationError("Listing not active");
    if (listing.seller.toLowerCase() !== wallet.address.toLowerCase()) {
      // Another org's expired listing is simply not active for the caller.
      if (expired) throw new ValidationError("Listing not active");
      throw new ValidationError("Only the seller can delist this listing");
    }
    await requireTransferAllowed(ctx, ctx.contracts.marketplace, wallet.address, listing.tokenId);
    const context: DelistContext = {
      listingId: listingId.toString(),
      tokenId: listing.tokenId.toString(),
      reason: expired ? "expired" : "cancelled",
    };
    const data = expired
      ? marketplaceInterface.encodeFunctionData("reclaim", [listingId])
      : marketplaceInterface.encodeFunctionData("delist", [listingId]);
    return [{ to: ctx.contracts.marketplace, data, value: 0n, context }];
  },
  respond(row): z.output<typeof delistResponse> {
    const { result: r, txHash } = confirmedResult(row, delistResult);
    return {
      success: true,
      txHash,
      listingId: r.listingId,
      tokenId: r.tokenId,
      reason: r.delistReason ?? r.reason ?? "cancelled",
    };
  },
});
