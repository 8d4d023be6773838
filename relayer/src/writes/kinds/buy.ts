import { z } from "zod";
import { marketplaceInterface } from "../../chain/contracts/bindings.js";
import { ValidationError } from "../../errors.js";
import { address } from "../../domain/address.js";
import { formatCoin, parseCoin } from "../../shared/coin-amount.js";
import { activeListing, requireTransferAllowed } from "../chain-checks.js";
import { amountField, idField, parseId } from "../../shared/parse-input.js";
import { receiptFactsSchema } from "../../chain/contracts/receipt-events.js";
import { confirmedResult, defineWriteKind, writeResult, WRITE_OPTIONS } from "./write-kind.js";

/** Body of marketplace/buy. */
export const buyRequest = z.strictObject({
  ...WRITE_OPTIONS,
  listingId: idField,
  maxPriceInCOIN: amountField.optional(),
});

/** Success body of marketplace/buy. */
export const buyResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  listingId: z.string(),
  tokenId: z.string(),
  pricePaid: z.string(),
  buyer: address,
  seller: address.nullable(),
});

/** What a purchase's response needs beside the receipt's price and seller. */
export const buyContext = z.object({
  listingId: z.string(),
  tokenId: z.string(),
  buyer: z.string(),
});

type BuyContext = z.output<typeof buyContext>;

/** A confirmed purchase's stored result: a sale always emits `ListingSold` (`priceWei`). */
export const buyResult = writeResult(buyContext, receiptFactsSchema.required({ priceWei: true }));

/**
 * `POST /api/v1/write/marketplace/buy`: `buy(listingId, maxPrice)` paying `maxPriceInCOIN` when
 * given (the contract refunds the excess), else the current price.
 */
export const buy = defineWriteKind({
  kind: "buy",
  path: "/api/v1/write/marketplace/buy",
  summary: "Buy an active listing (maxPriceInCOIN guards against price changes)",
  scopes: ["write:marketplace"],
  request: buyRequest,
  response: buyResponse,
  context: buyContext,
  docs: {
    operationId: "buyAsset",
    description: "Reverts when the current price is above `maxPriceInCOIN`.",
    errors: {
      400: [
        "Listing not active",
        "Seller cannot buy own listing",
        "Asset is frozen",
        "Transfers are paused",
        "Recipient is not allowed to hold this asset type",
      ],
      500: ["Transaction failed: Price above max"],
    },
  },
  priceOf: (input) =>
    input.maxPriceInCOIN === undefined
      ? undefined
      : parseCoin(input.maxPriceInCOIN, "maxPriceInCOIN"),
  async prepare(ctx, wallet, input) {
    const listingId = parseId(input.listingId, "listingId");
    const maxPrice =
      input.maxPriceInCOIN === undefined
        ? undefined
        : parseCoin(input.maxPriceInCOIN, "maxPriceInCOIN");
    const listing = await activeListing(ctx, listingId);
    if (listing.seller.toLowerCase() === wallet.address.toLowerCase()) {
      throw new ValidationError("Seller cannot buy own listing");
    }
    await requireTransferAllowed(ctx, ctx.contracts.marketplace, wallet.address, listing.tokenId);
    const cap = maxPrice ?? listing.price;
    const value = maxPrice === undefined || maxPrice < listing.price ? listing.price : maxPrice;
    const data = marketplaceInterface.encodeFunctionData("buy", [listingId, cap]);
    const context: BuyContext = {
      listingId: listingId.toString(),
      tokenId: listing.tokenId.toString(),
      buyer: wallet.address,
    };
    return [{ to: ctx.contracts.marketplace, data, value, context }];
  },
  respond(row): z.output<typeof buyResponse> {
    const { result: r, txHash } = confirmedResult(row, buyResult);
    return {
      success: true,
      txHash,
      listingId: r.listingId,
      tokenId: r.tokenId,
      pricePaid: formatCoin(BigInt(r.priceWei)),
      buyer: r.buyer,
      seller: r.seller ?? null,
    };
  },
});
