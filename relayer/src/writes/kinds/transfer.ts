import { z } from "zod";
import { assetTokenInterface } from "../../chain/contracts/bindings.js";
import { address } from "../../domain/address.js";
import { requireHeld, requireTransferAllowed } from "../chain-checks.js";
import { idField, parseAddress, parseId } from "../../shared/parse-input.js";
import { confirmedResult, defineWriteKind, idText } from "./write-kind.js";

/** Body of transfer. */
export const transferRequest = z.strictObject({
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

interface TransferContext {
  from: string;
  to: string;
  tokenId: string;
}

/** `POST /api/v1/write/transfer`: `safeTransferFrom(wallet, to, tokenId)`. */
export const transfer = defineWriteKind({
  kind: "transfer",
  path: "/api/v1/write/transfer",
  summary: "Transfer an asset from the custodial wallet",
  scopes: ["write:transfer"],
  request: transferRequest,
  response: transferResponse,
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
    },
  },
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
  respond(row) {
    const { result: r, txHash } = confirmedResult<TransferContext>(row);
    return {
      success: true,
      txHash,
      from: r.from,
      to: r.to,
      tokenId: idText(r.tokenId),
    } as z.output<typeof transferResponse>;
  },
});
