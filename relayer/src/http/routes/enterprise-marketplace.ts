import { z } from "zod";
import { rescueMarketplaceToken } from "../../operator/marketplace-rescue.js";
import { defineRoute } from "../route-definition.js";
import { addressSchema, errorBody, sentErrorBody } from "./schemas.js";

/** Request body of `POST /api/enterprise/marketplace/rescue`. */
export const rescueRequest = z.strictObject({
  tokenId: z
    .union([z.string(), z.number().int().nonnegative()])
    .describe("decimal id (string or number)"),
  toAddress: z.string().describe("0x address the token is sent to"),
});

/** Response of `POST /api/enterprise/marketplace/rescue`. */
export const rescueResponse = z.object({
  success: z.literal(true),
  txHash: z.string(),
  tokenId: z.string(),
  toAddress: addressSchema,
});

/**
 * `POST /api/enterprise/marketplace/rescue` (X-Admin-Token or an operator console session):
 * returns a token the marketplace holds without a listing to the address the operator names.
 */
export const rescueRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/marketplace/rescue",
  summary:
    "Return a token held by the marketplace without a listing (plain transferFrom) to an address (operator staff)",
  docs: {
    operationId: "rescueMarketplaceToken",
    tag: "Marketplace",
    description:
      "For the operator's staff only. Sends a token the marketplace holds without a listing " +
      "(moved there by a plain `transferFrom`) to `toAddress`, from the operator account. Never " +
      "a token backing an active or expired, unreclaimed listing.",
    errors: {
      400: [
        "Token is not held by the marketplace",
        "Token backs an active listing (listing 3)",
        "Invalid field: toAddress (not a 0x address)",
      ],
      404: ["Asset not found"],
    },
  },
  auth: "admin",
  scopes: [],
  request: { body: rescueRequest },
  responses: {
    200: rescueResponse,
    400: errorBody,
    401: errorBody,
    403: errorBody,
    404: errorBody,
    500: sentErrorBody,
    503: sentErrorBody,
  },
  handler: async ({ ctx, body, origin }) => rescueMarketplaceToken(ctx, body, origin),
});
