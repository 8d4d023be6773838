import { z } from "zod";
import { marketplaceInterface } from "../../chain/contracts.js";
import { ValidationError } from "../../errors.js";
import { activeListing } from "../chain-checks.js";
import { idField, parseId } from "../write-inputs.js";
import { confirmedResult, defineWriteKind, idText } from "./write-kind.js";

/** Body of marketplace/delist. */
export const delistRequest = z.strictObject({ listingId: idField });

/** Success body of marketplace/delist. */
export const delistResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  listingId: z.string(),
  tokenId: z.string(),
});

interface DelistContext {
  listingId: string;
  tokenId: string;
}

/** `POST /api/v1/write/marketplace/delist`: seller only (400 otherwise, nothing sent). */
export const delist = defineWriteKind({
  kind: "delist",
  path: "/api/v1/write/marketplace/delist",
  summary: "Cancel a listing (seller only); the asset returns to the wallet",
  scopes: ["write:marketplace"],
  request: delistRequest,
  response: delistResponse,
  docs: {
    operationId: "delistAsset",
    errors: { 400: ["Listing not active", "Only the seller can delist this listing"] },
  },
  async prepare(ctx, wallet, input) {
    const listingId = parseId(input.listingId, "listingId");
    const listing = await activeListing(ctx, listingId);
    if (listing.seller.toLowerCase() !== wallet.address.toLowerCase()) {
      throw new ValidationError("Only the seller can delist this listing");
    }
    const context: DelistContext = {
      listingId: listingId.toString(),
      tokenId: listing.tokenId.toString(),
    };
    const data = marketplaceInterface.encodeFunctionData("delist", [listingId]);
    return [{ to: ctx.contracts.marketplace, data, value: 0n, context }];
  },
  respond(row) {
    const { result: r, txHash } = confirmedResult<DelistContext>(row);
    return {
      success: true,
      txHash,
      listingId: idText(r.listingId),
      tokenId: idText(r.tokenId),
    } as z.output<typeof delistResponse>;
  },
});
