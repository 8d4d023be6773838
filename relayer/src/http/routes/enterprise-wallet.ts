import { z } from "zod";
import { getWalletAlerts, MAX_LOW_BALANCE_WEI, setLowBalance } from "../../alerts/low-balance.js";
import { ValidationError } from "../../errors.js";
import { getWalletBalance } from "../../reads/wallet-balance.js";
import { parseCoin } from "../../shared/coin-amount.js";
import { amountField } from "../../shared/parse-input.js";
import { defineRoute } from "../route-definition.js";
import { addressSchema, apiKeyErrors, errorBody } from "./schemas.js";

/** Wallet balance object (see reads/wallet-balance.ts). */
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

/** `GET`/`PUT /api/enterprise/wallet/alerts` response (alerts/low-balance.ts). */
export const walletAlertsResponse = z.object({
  walletAddress: addressSchema,
  lowBalance: z.string().describe("the threshold, native coin decimal"),
  lowBalanceWei: z.string().regex(/^\d+$/),
  isDefault: z.boolean().describe("true while the default (10 issuances at 0.15: 1.5) applies"),
  state: z
    .enum(["ok", "low", "unknown"])
    .describe("what the indexer last saw: below the threshold, not, or not read yet"),
  balance: z.string().nullable().describe("the balance the indexer last recorded"),
  balanceWei: z.string().nullable(),
  blockNumber: z.number().int().nullable().describe("the block of that balance"),
});

/** `PUT /api/enterprise/wallet/alerts` body. */
export const walletAlertsBody = z.strictObject({
  lowBalance: amountField.describe(
    'the low-balance threshold in native coin, e.g. "1.5"; 0 turns the alert off',
  ),
});

const INVALID_THRESHOLD =
  'Invalid field: lowBalance (must be a decimal amount from 0 with at most 18 decimals, e.g. "1.5")';

/** `GET /api/enterprise/wallet/alerts` (scope read): the low-balance threshold and state. */
export const getWalletAlertsRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/wallet/alerts",
  summary: "Low-balance alert: threshold and the wallet's state as the indexer saw it",
  docs: {
    operationId: "getWalletAlerts",
    tag: "Organization",
    description:
      "When the balance the indexer reads falls below `lowBalance`, the organization's webhooks " +
      "subscribed to `wallet.low_balance` get it once; `wallet.funded` follows once it is back " +
      "at or above. Default threshold: 1.5 (10 issuances at about 0.15 each).",
  },
  auth: "apiKey",
  scopes: ["read"],
  request: {},
  responses: { 200: walletAlertsResponse, ...apiKeyErrors },
  handler: async ({ ctx, principal }) => getWalletAlerts(ctx.database, principal!.orgId),
});

/** `PUT /api/enterprise/wallet/alerts` (scope webhooks): sets the low-balance threshold. */
export const putWalletAlertsRoute = defineRoute({
  method: "put",
  path: "/api/enterprise/wallet/alerts",
  summary: "Set the low-balance threshold",
  docs: {
    operationId: "setWalletAlerts",
    tag: "Organization",
    description:
      "Needs the `webhooks` scope: the threshold decides which webhook events the organization " +
      "receives. The indexer reads the wallet again at its next block, so a threshold set above " +
      "the balance sends `wallet.low_balance` within a block or so.",
    errors: { 400: [INVALID_THRESHOLD, "Missing required field: lowBalance"] },
  },
  auth: "apiKey",
  scopes: ["webhooks"],
  request: { body: walletAlertsBody },
  responses: { 200: walletAlertsResponse, ...apiKeyErrors },
  handler: async ({ ctx, principal, body }) => {
    let wei: bigint;
    try {
      wei = parseCoin(body.lowBalance, "lowBalance");
    } catch {
      throw new ValidationError(INVALID_THRESHOLD);
    }
    if (wei > MAX_LOW_BALANCE_WEI) throw new ValidationError(INVALID_THRESHOLD);
    return setLowBalance(ctx.database, principal!.orgId, wei);
  },
});
