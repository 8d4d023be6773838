import { z } from "zod";
import { STUCK_REASONS, STUCK_REASONS_TEXT } from "./transaction.ts";

/**
 * The webhook events (docs/webhooks.md), declared once: each kind with its text and the schema of
 * its `data`. Subscriptions, the indexer's outbox, the OpenAPI `webhooks` section, the SDK and the
 * console all take the kinds and payload shapes from here.
 */

const address = z.string().describe("EIP-55 checksummed 0x address");
const coin = z.string().describe("decimal amount in the native coin");
const wei = z.string().describe("the same amount as an integer in wei");
const transfer = { tokenId: z.string(), from: address, to: address };
/** The fields of every `transaction.*` event's `data`. */
const transactionOutcome = z.object({
  transactionId: z.string().describe("the write's id (`GET /api/v1/transactions/{id}`)"),
  kind: z.string().describe("the write kind, e.g. issue-asset"),
  idempotencyKey: z
    .string()
    .optional()
    .describe("the write's `Idempotency-Key`, when one was given"),
});

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
  "wallet.low_balance": {
    description:
      "The custodial wallet's balance fell below the organization's low-balance threshold " +
      "(`PUT /api/enterprise/wallet/alerts`), as the indexer saw it at `blockNumber`; sent once per crossing. " +
      "`txHash` is null: a balance is not one transaction.",
    data: z.object({
      walletAddress: address,
      balance: coin.describe("the balance at `blockNumber`"),
      balanceWei: wei,
      threshold: coin,
      thresholdWei: wei,
    }),
  },
  "wallet.funded": {
    description:
      "The custodial wallet's balance is back at or above the low-balance threshold after a " +
      "`wallet.low_balance`; sent once per crossing. `txHash` is null.",
    data: z.object({
      walletAddress: address,
      balance: coin.describe("the balance at `blockNumber`"),
      balanceWei: wei,
      threshold: coin,
      thresholdWei: wei,
    }),
  },
  "asset.frozen": {
    description:
      "The operator froze a token (held by, or listed by, the organization's wallet): it cannot be transferred, listed, bought or redeemed.",
    data: z.object({
      tokenId: z.string(),
      holder: address.describe("the on-chain holder (the marketplace while listed)"),
      reason: z.string().describe("the operator's reason"),
    }),
  },
  "asset.unfrozen": {
    description: "The operator unfroze a token (a forced transfer unfreezes it too).",
    data: z.object({
      tokenId: z.string(),
      holder: address.describe("the on-chain holder (the marketplace while listed)"),
      reason: z.string().describe("the operator's reason"),
    }),
  },
  "asset.forced_transfer": {
    description:
      "The operator moved a token by force (a court order, a lost key); an active listing of it ended cancelled first. Sent to both sides.",
    data: z.object({
      ...transfer,
      reason: z.string().describe("the operator's reason"),
    }),
  },
  "market.paused": {
    description:
      "The operator halted every transfer and the marketplace (sent to every organization).",
    data: z.object({
      by: address.describe("the pauser's account"),
      reason: z.string().describe("the operator's reason"),
    }),
  },
  "market.resumed": {
    description: "The operator resumed transfers and the marketplace (sent to every organization).",
    data: z.object({
      by: address.describe("the pauser's account"),
      reason: z.string().describe("the operator's reason"),
    }),
  },
  "transaction.confirmed": {
    description:
      "A write of the organization ended confirmed (mined with status 1 and its confirmations): " +
      "its `result` is what `GET /api/v1/transactions/{id}` stores for it. `txHash` and " +
      "`blockNumber` are the mined transaction's; `timestamp` is when the write became final.",
    data: transactionOutcome.extend({
      status: z.literal("confirmed"),
      result: z
        .record(z.string(), z.unknown())
        .describe("the write's result (tokenId, txHash, ...)"),
    }),
  },
  "transaction.failed": {
    description:
      "A write of the organization ended failed: reverted on chain (a listing sold a moment " +
      "before the buy), or refused before it could be mined. `reason` is the API's words for " +
      "it (`Transaction failed: <reason>`, or the check's own words for a lost race, e.g. " +
      "`Listing not active`). `txHash` and `blockNumber` are null when nothing was mined.",
    data: transactionOutcome.extend({
      status: z.enum(["failed", "replaced"]),
      reason: z.string().describe("the error the API answers for the write"),
      result: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("a batch's summary (every item failed)"),
    }),
  },
  "transaction.cancelled": {
    description:
      "A write of the organization was cancelled (`POST /api/v1/transactions/{id}/cancel`): " +
      "before anything was sent (nothing reached the chain; `txHash` and `blockNumber` are " +
      "null), or, once sent, by the zero-value self-transfer mined on its nonce (`txHash`).",
    data: transactionOutcome.extend({
      status: z.literal("cancelled"),
      reason: z.literal("Transaction cancelled"),
    }),
  },
  "transaction.expired": {
    description:
      "A write of the organization reached its deadline (`validForSeconds`) before anything was " +
      "sent: nothing reached the chain and its reserved funds are free. `txHash` and " +
      "`blockNumber` are null.",
    data: transactionOutcome.extend({
      status: z.literal("expired"),
      reason: z.literal("Transaction expired"),
    }),
  },
  "transaction.approval_required": {
    description:
      "A write of the organization is held by an approval rule of its policy (docs/policy.md " +
      '"Approvals"): nothing was signed; it waits for `approvalsRequired` people with role ' +
      "`approver` or `owner` until `expiresAt`. `txHash` and `blockNumber` are null; `timestamp` " +
      "is when it was held.",
    data: transactionOutcome.extend({
      status: z.literal("pending_approval"),
      approvalsRequired: z.number().int().describe("1 or 2"),
      requestedBy: z.string().describe("the key id, or `usr_… (email)` of the person who asked"),
      expiresAt: z.string().describe("ISO 8601: when it ends `expired` unless decided"),
    }),
  },
  "transaction.stuck": {
    description:
      "A sent write of the organization is stuck: re-priced up to the fee cap it reserved and " +
      "still not mined (`reason: fee-cap`), not mined within STUCK_AFTER_BLOCKS blocks " +
      "(`not-mined`), or held by a lower nonce of its wallet that is not mined (`nonce-gap`). " +
      "Sent once per write; `GET /api/v1/transactions/{id}` shows `stuck`. Cancel it " +
      "(`POST /api/v1/transactions/{id}/cancel`), speed it up, or wait. `txHash` and " +
      "`blockNumber` are null; `timestamp` is when it was marked.",
    data: transactionOutcome.extend({
      status: z.literal("sent"),
      reason: z.enum(STUCK_REASONS).describe(STUCK_REASONS_TEXT),
      since: z.string().describe("ISO 8601"),
    }),
  },
} as const;

/** Kinds about the wallet's balance rather than one transaction: their `txHash` is null. */
const BALANCE_KINDS: ReadonlySet<string> = new Set(["wallet.low_balance", "wallet.funded"]);

/**
 * Kinds about one write's outcome (`engine/outcome-events.ts`): `txHash` and `blockNumber` are
 * the mined transaction's, null when none was mined.
 */
const TRANSACTION_KINDS: ReadonlySet<string> = new Set([
  "transaction.confirmed",
  "transaction.failed",
  "transaction.cancelled",
  "transaction.expired",
  "transaction.stuck",
  "transaction.approval_required",
]);

/** An on-chain event kind a webhook can subscribe to. */
export type WebhookEventKind = keyof typeof EVENTS;

/** Every kind a webhook can subscribe to, in documentation order. */
export const WEBHOOK_EVENT_KINDS = Object.keys(EVENTS) as [WebhookEventKind, ...WebhookEventKind[]];

/**
 * Every kind a delivery can carry: the chain kinds plus the service's notices, which are not
 * subscribed to: the `webhook.test` ping (to one webhook) and `webhook.disabled` (to the
 * organization's other webhooks when one is disabled).
 */
export type DeliveryEventKind = WebhookEventKind | "webhook.test" | "webhook.disabled";

/** The envelope of every delivery, with `data` specific to `event`. */
function envelope<TKind extends string, TData extends z.ZodType>(
  event: TKind,
  data: TData,
): Envelope<TKind, TData> {
  return z.object({
    event: z.literal(event),
    timestamp: z.number().int().describe("milliseconds since the epoch: the block's timestamp"),
    orgId: z.string().describe("the organization notified"),
    txHash: BALANCE_KINDS.has(event)
      ? z.string().nullable().describe("null: a balance event follows no single transaction")
      : TRANSACTION_KINDS.has(event)
        ? z.string().nullable().describe("the mined transaction; null when none was mined")
        : z.string().describe("transaction holding the event"),
    blockNumber: TRANSACTION_KINDS.has(event)
      ? z.number().int().nullable().describe("the mined transaction's block; null when none")
      : z.number().int(),
    data,
  });
}

type Envelope<K extends string, D extends z.ZodType> = z.ZodObject<{
  event: z.ZodLiteral<K>;
  timestamp: z.ZodNumber;
  orgId: z.ZodString;
  txHash: z.ZodString | z.ZodNullable<z.ZodString>;
  blockNumber: z.ZodNumber | z.ZodNullable<z.ZodNumber>;
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

/** `webhook.disabled`: one of the organization's webhooks was disabled (sent to the others). */
export const WEBHOOK_DISABLED_SCHEMA = z.object({
  event: z.literal("webhook.disabled"),
  timestamp: z.number().int().describe("milliseconds since the epoch: when it was disabled"),
  orgId: z.string(),
  txHash: z.null(),
  blockNumber: z.null(),
  data: z.object({
    webhookId: z.string().describe("the webhook that was disabled"),
    url: z.string(),
    reason: z.string().describe("the disabled webhook's disabledReason"),
    disabledAt: z.string().describe("ISO 8601"),
  }),
});

/** Human text for each delivery kind, for the reference page. */
export const WEBHOOK_EVENT_DESCRIPTIONS: Readonly<Record<DeliveryEventKind, string>> = {
  ...(Object.fromEntries(WEBHOOK_EVENT_KINDS.map((k) => [k, EVENTS[k].description])) as Record<
    WebhookEventKind,
    string
  >),
  "webhook.test": "The test ping sent by `POST /api/enterprise/webhooks/{webhookId}/test`.",
  "webhook.disabled":
    "One of the organization's webhooks was disabled (410 Gone, or failing for 3 days); sent to its other enabled webhooks, whatever their subscriptions.",
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
