import { z } from "zod";

/**
 * The webhook events (docs/webhooks.md), declared once: each kind with its text and the schema of
 * its `data`. Subscriptions, the indexer's outbox, the OpenAPI `webhooks` section, the SDK and the
 * console all take the kinds and payload shapes from here.
 */

const address = z.string().describe("EIP-55 checksummed 0x address");
const coin = z.string().describe("decimal amount in the native coin");
const wei = z.string().describe("the same amount as an integer in wei");
const transfer = { tokenId: z.string(), from: address, to: address };

const EVENTS = {
  "asset.issued": {
    description: "An asset was minted (to or by the organization's wallet).",
    data: z.object({
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
  },
  "asset.transferred": {
    description:
      "A token moved between two wallets (secondary transfers included; escrow moves excluded).",
    data: z.object(transfer),
  },
  "asset.listed": {
    description: "A listing was created by the organization's wallet.",
    data: z.object({
      ...transfer,
      listingId: z.string(),
      price: coin,
      priceWei: wei,
      seller: address,
      expiresAt: z.string().describe("ISO 8601"),
    }),
  },
  "asset.sold": {
    description: "A listing was bought (sent to the seller's and the buyer's organization).",
    data: z.object({
      ...transfer,
      listingId: z.string(),
      buyer: address,
      seller: address,
      price: coin,
      priceWei: wei,
    }),
  },
  "asset.delisted": {
    description: "A listing was cancelled by the seller, or an expired listing was reclaimed.",
    data: z.object({
      ...transfer,
      listingId: z.string(),
      seller: address,
      reason: z.enum(["cancelled", "expired"]),
    }),
  },
  "asset.redeemed": {
    description:
      "A token was redeemed (burnt) and its stake paid back to the owner's wallet; the asset stays readable as redeemed.",
    data: z.object({
      tokenId: z.string(),
      from: address.describe("the redeeming wallet"),
      to: address.describe("the zero address (burn)"),
      owner: address,
      stakeReturned: coin,
      stakeReturnedWei: wei,
    }),
  },
} as const;

/** An on-chain event kind a webhook can subscribe to. */
export type WebhookEventKind = keyof typeof EVENTS;

/** Every kind a webhook can subscribe to, in documentation order. */
export const WEBHOOK_EVENT_KINDS = Object.keys(EVENTS) as [WebhookEventKind, ...WebhookEventKind[]];

/** Every kind a delivery can carry: the chain kinds plus the `webhook.test` ping. */
export type DeliveryEventKind = WebhookEventKind | "webhook.test";

/** The envelope of every delivery, with `data` specific to `event`. */
function envelope<TKind extends string, TData extends z.ZodType>(
  event: TKind,
  data: TData,
): Envelope<TKind, TData> {
  return z.object({
    event: z.literal(event),
    timestamp: z.number().int().describe("milliseconds since the epoch: the block's timestamp"),
    orgId: z.string().describe("the organization notified"),
    txHash: z.string().describe("transaction holding the event"),
    blockNumber: z.number().int(),
    data,
  });
}

type Envelope<K extends string, D extends z.ZodType> = z.ZodObject<{
  event: z.ZodLiteral<K>;
  timestamp: z.ZodNumber;
  orgId: z.ZodString;
  txHash: z.ZodString;
  blockNumber: z.ZodNumber;
  data: D;
}>;
type EventSchemas = { [K in WebhookEventKind]: Envelope<K, (typeof EVENTS)[K]["data"]> };

/** The payload schema of each chain event kind (the OpenAPI `webhooks` section). */
export const WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(
  WEBHOOK_EVENT_KINDS.map((kind) => [kind, envelope(kind, EVENTS[kind].data)]),
) as unknown as EventSchemas;

/** `webhook.test`: the ping of `POST /api/enterprise/webhooks/{id}/test`. */
export const WEBHOOK_TEST_SCHEMA = z.object({
  event: z.literal("webhook.test"),
  timestamp: z.number().int(),
  orgId: z.string(),
  txHash: z.null(),
  blockNumber: z.null(),
  data: z.object({ webhookId: z.string() }),
});

/** Human text for each delivery kind, for the reference page. */
export const WEBHOOK_EVENT_DESCRIPTIONS: Readonly<Record<DeliveryEventKind, string>> = {
  ...(Object.fromEntries(WEBHOOK_EVENT_KINDS.map((k) => [k, EVENTS[k].description])) as Record<
    WebhookEventKind,
    string
  >),
  "webhook.test": "The test ping sent by `POST /api/enterprise/webhooks/{webhookId}/test`.",
};

/** The payload of a chain event of kind `K`. */
export type WebhookEventPayload<K extends WebhookEventKind = WebhookEventKind> = z.output<
  EventSchemas[K]
>;

/** The JSON body of every delivery (chain events and the test ping). */
export interface WebhookPayload {
  event: DeliveryEventKind;
  /** Milliseconds since the Unix epoch: the block's timestamp for chain events. */
  timestamp: number;
  orgId: string;
  txHash: string | null;
  blockNumber: number | null;
  data: Record<string, unknown>;
}
