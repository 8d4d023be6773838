import { z } from "zod";
import { getWalletBalance } from "../../services/wallet-balance.js";
import { defineRoute } from "../route-definition.js";
import { addressSchema, apiKeyErrors, errorBody } from "./schemas.js";

/** Wallet balance object (see services/wallet-balance.ts). */
export const walletResponse = z.object({
  walletAddress: addressSchema,
  balance: z.string().describe('decimal native-coin amount, e.g. "1.5", "0", "100"'),
  balanceWei: z.string().regex(/^\d+$/),
  chain: z.number().int(),
});

/** `GET /api/enterprise/wallet` (scope read): the custodial wallet and its balance. */
export const walletRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/wallet",
  summary: "Custodial wallet address and balance",
  docs: { operationId: "getWallet", tag: "Organization" },
  auth: "apiKey",
  scopes: ["read"],
  request: {},
  responses: { 200: walletResponse, ...apiKeyErrors, 503: errorBody },
  handler: async ({ ctx, principal }) => getWalletBalance(ctx, principal!.orgId),
});
