import { AbiCoder } from "ethers";
import { z } from "zod";
import { assetTokenInterface } from "../../chain/contracts/bindings.js";
import { ValidationError } from "../../errors.js";
import { formatCoin, parseCoin } from "../../shared/coin-amount.js";
import { requireHeld, requireTransferAllowed } from "../chain-checks.js";
import { WRITE_LIMITS as L } from "../limits.js";
import { amountField, idField, parseId } from "../../shared/parse-input.js";
import { receiptFactsSchema } from "../../chain/contracts/receipt-events.js";
import { confirmedResult, defineWriteKind, writeResult, WRITE_OPTIONS } from "./write-kind.js";

/** Body of marketplace/list. */
export const listRequest = z.strictObject({
  ...WRITE_OPTIONS,
  tokenId: idField,
  priceInCOIN: amountField,
  durationDays: z
    .number()
    .int("must be an integer")
    .min(L.durationDaysMin, `must be ${L.durationDaysMin} to ${L.durationDaysMax}`)
    .max(L.durationDaysMax, `must be ${L.durationDaysMin} to ${L.durationDaysMax}`)
    .optional()
    .describe("default 30"),
});

/** Success body of marketplace/list. */
export const listResponse = z.object({
  success: z.literal(true),
  listingId: z.string(),
  txHash: z.string(),
  tokenId: z.string(),
  priceInCOIN: z.string(),
  durationDays: z.number().int(),
  expiresAt: z.string().nullable(),
});

/** What a listing's response needs beside the receipt's `listingId` and `expiresAt`. */
export const listContext = z.object({
  tokenId: z.string(),
  priceInCOIN: z.string(),
  durationDays: z.number().int(),
  seller: z.string(),
});

type ListContext = z.output<typeof listContext>;

/** A confirmed listing's stored result: a listing always emits `ListingCreated` (`listingId`). */
export const listResult = writeResult(
  listContext,
  receiptFactsSchema.required({ listingId: true }),
);

/**
 * `POST /api/v1/write/marketplace/list`: one transaction, no approval:
 * `safeTransferFrom(wallet, marketplace, tokenId, abi.encode(price, durationDays))`.
 */
export const list = defineWriteKind({
  kind: "list",
  path: "/api/v1/write/marketplace/list",
  summary: "List an asset on the marketplace (escrow, one transaction)",
  scopes: ["write:marketplace"],
  request: listRequest,
  response: listResponse,
  context: listContext,
  docs: {
    operationId: "listAsset",
    description:
      "Moves the token into marketplace escrow in one transaction (no separate approve).",
    errors: {
      400: [
        "Missing required field: priceInCOIN",
        "Token 7 does not exist",
        "Asset is frozen",
        "Transfers are paused",
      ],
    },
  },
  priceOf: (input) => parseCoin(input.priceInCOIN, "priceInCOIN"),
  async prepare(ctx, wallet, input) {
    const tokenId = parseId(input.tokenId, "tokenId");
    const price = parseCoin(input.priceInCOIN, "priceInCOIN");
    if (price === 0n) throw new ValidationError("Invalid field: priceInCOIN (must be above zero)");
    const days = input.durationDays ?? L.durationDaysDefault;
    await requireHeld(ctx, wallet, tokenId);
    await requireTransferAllowed(ctx, wallet.address, ctx.contracts.marketplace, tokenId);
    const payload = AbiCoder.defaultAbiCoder().encode(
      ["uint256", "uint256"],
      [price, BigInt(days)],
    );
    const data = assetTokenInterface.encodeFunctionData(
      "safeTransferFrom(address,address,uint256,bytes)",
      [wallet.address, ctx.contracts.marketplace, tokenId, payload],
    );
    const context: ListContext = {
      tokenId: tokenId.toString(),
      priceInCOIN: formatCoin(price),
      durationDays: days,
      seller: wallet.address,
    };
    return [{ to: ctx.contracts.assetToken, data, value: 0n, context }];
  },
  respond(row): z.output<typeof listResponse> {
    const { result: r, txHash } = confirmedResult(row, listResult);
    return {
      success: true,
      listingId: r.listingId,
      txHash,
      tokenId: r.tokenId,
      priceInCOIN: r.priceInCOIN,
      durationDays: r.durationDays,
      expiresAt: r.expiresAt === undefined ? null : new Date(r.expiresAt * 1000).toISOString(),
    };
  },
});
