import { z } from "zod";
import { assetTokenInterface } from "../../chain/contracts/bindings.js";
import { address } from "../../domain/address.js";
import { requireHeld, requireTransferAllowed } from "../chain-checks.js";
import { idField, parseAddress, parseId } from "../../shared/parse-input.js";
import { receiptFactsSchema } from "../../chain/contracts/receipt-events.js";
import { confirmedResult, defineWriteKind, writeResult, WRITE_OPTIONS } from "./write-kind.js";

/** Body of transfer. */
export const transferRequest = z.strictObject({
  ...WRITE_OPTIONS,
  tokenId: idField,
  toAddress: z.string().describe("0x address"),
});

/** Success body of transfer. */
export const transferResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  from: address,
  to: address,
  tokenId: z.string(),
});

/** What a transfer's response needs (the receipt's facts add nothing it uses). */
export const transferContext = z.object({ from: z.string(), to: z.string(), tokenId: z.string() });

type TransferContext = z.output<typeof transferContext>;

/** A confirmed transfer's stored result. */
export const transferResult = writeResult(transferContext, receiptFactsSchema);

/** `POST /api/v1/write/transfer`: `safeTransferFrom(wallet, to, tokenId)`. */
export const transfer = defineWriteKind({
  kind: "transfer",
  path: "/api/v1/write/transfer",
  summary: "Transfer an asset from the custodial wallet",
  scopes: ["write:transfer"],
  request: transferRequest,
  response: transferResponse,
  context: transferContext,
  docs: {
    operationId: "transfer",
    errors: {
      400: [
        "Missing required field: toAddress",
        "Invalid field: toAddress (not a 0x address)",
        "Token 7 is not held by this organization's wallet",
        "Asset is frozen",
        "Transfers are paused",
        "Recipient is not allowed to hold this asset type",
      ],
      403: [
        "Policy: destination 0x… is not on the organization's allowlist",
        "Policy: the organization's limit of 10 transfers in 24 hours is reached",
      ],
    },
  },
  destinationOf: (input) => parseAddress(input.toAddress, "toAddress"),
  async prepare(ctx, wallet, input) {
    const tokenId = parseId(input.tokenId, "tokenId");
    const to = parseAddress(input.toAddress, "toAddress");
    await requireHeld(ctx, wallet, tokenId);
    await requireTransferAllowed(ctx, wallet.address, to, tokenId);
    const data = assetTokenInterface.encodeFunctionData(
      "safeTransferFrom(address,address,uint256)",
      [wallet.address, to, tokenId],
    );
    const context: TransferContext = { from: wallet.address, to, tokenId: tokenId.toString() };
    return [{ to: ctx.contracts.assetToken, data, value: 0n, context }];
  },
  respond(row): z.output<typeof transferResponse> {
    const { result: r, txHash } = confirmedResult(row, transferResult);
    return { success: true, txHash, from: r.from, to: r.to, tokenId: r.tokenId };
  },
});
