import { z } from "zod";

const address = z.string().describe("EIP-55 checksummed 0x address");
const coin = z.string().describe("decimal amount in the native coin");
const wei = z.string().describe("the same amount as an integer in wei");

/** The envelope of every delivery (spec section 6), with `data` specific to `event`. */
function envelope<TKind extends string, TData extends z.ZodType>(event: TKind, data: TData) {
  return z.object({
    event: z.literal(event),
    timestamp: z.number().int().describe("milliseconds since the epoch: the block's timestamp"),
    orgId: z.string().describe("the organization notified"),
    txHash: z.string().describe("transaction holding the event"),
    blockNumber: z.number().int(),
    data,
  });
}

const transfer = { tokenId: z.string(), from: address, to: address };

/**
 * Payload schemas of the webhook events (docs/webhooks.md), by event kind: the top-level
 * `webhooks` section of the OpenAPI document.
 */
export const WEBHOOK_EVENT_SCHEMAS = {
  "asset.issued": envelope(
    "asset.issued",
    z.object({
      ...transfer,
      from: address.describe("the zero address (mint)"),
      wallet: address.describe("the owner"),
      assetType: z.string(),
      name: z.string().nullable().describe("from the metadata document; null if not issued here"),
      stakedAmount: coin,
      stakedAmountWei: wei,
      ipfsHash: z.string().describe("metadata CID"),
      minter: address,
    }),
  ),
  "asset.transferred": envelope("asset.transferred", z.object(transfer)),
  "asset.listed": envelope(
    "asset.listed",
    z.object({
      ...transfer,
      listingId: z.string(),
      price: coin,
      priceWei: wei,
      seller: address,
      expiresAt: z.string().describe("ISO 8601"),
    }),
  ),
  "asset.sold": envelope(
    "asset.sold",
    z.object({
      ...transfer,
      listingId: z.string(),
      buyer: address,
      seller: address,
      price: coin,
      priceWei: wei,
    }),
  ),
  "asset.delisted": envelope(
    "asset.delisted",
    z.object({
      ...transfer,
      listingId: z.string(),
      seller: address,
      reason: z.enum(["cancelled", "expired"]),
    }),
  ),
} as const;

/** `webhook.test`: the ping of `POST /api/enterprise/webhooks/{id}/test`. */
export const WEBHOOK_TEST_SCHEMA = z.object({
  event: z.literal("webhook.test"),
  timestamp: z.number().int(),
  orgId: z.string(),
  txHash: z.null(),
  blockNumber: z.null(),
  data: z.object({ webhookId: z.string() }),
});

/** Human text for each event, for the reference page. */
export const WEBHOOK_EVENT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "asset.issued": "An asset was minted (to or by the organization's wallet).",
  "asset.transferred":
    "A token moved between two wallets (secondary transfers included; escrow moves excluded).",
  "asset.listed": "A listing was created by the organization's wallet.",
  "asset.sold": "A listing was bought (sent to the seller's and the buyer's organization).",
  "asset.delisted": "A listing was cancelled by the seller, or an expired listing was reclaimed.",
  "webhook.test": "The test ping sent by `POST /api/enterprise/webhooks/{webhookId}/test`.",
};
