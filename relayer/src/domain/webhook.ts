import { z } from "zod";
import { timestamp } from "./timestamp.ts";

/** A webhook as listed (never the secret). */
export const webhookSummary = z.object({
  webhookId: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe("why it was disabled (410 Gone, or failing for 3 days); null while enabled"),
  disabledAt: timestamp.nullable(),
  previousSecretExpiresAt: timestamp
    .nullable()
    .describe("after a rotation: until when deliveries are also signed with the previous secret"),
  createdAt: timestamp,
});

/** A webhook as listed. */
export type WebhookSummary = z.output<typeof webhookSummary>;

/** A new webhook: the secret is shown only here. */
export const createdWebhook = webhookSummary.extend({
  secret: z.string().describe("shown only once"),
});

/** A new webhook with its secret. */
export type CreatedWebhook = z.output<typeof createdWebhook>;

/** The answer of a secret rotation: the new secret is shown only here. */
export const rotatedWebhookSecret = z.object({
  webhookId: z.string(),
  secret: z.string().describe("the new secret, shown only once"),
  previousSecretExpiresAt: timestamp.describe(
    "until then deliveries are also signed with the previous secret",
  ),
});

/** The answer of a secret rotation. */
export type RotatedWebhookSecret = z.output<typeof rotatedWebhookSecret>;

/** The states of a delivery (docs/webhooks.md). */
export const DELIVERY_STATUSES = [
  "pending",
  "retrying",
  "delivered",
  "failed",
  "cancelled",
] as const;

/** One attempt of a delivery. */
export const deliveryAttempt = z.object({
  attempt: z.number().int(),
  startedAt: timestamp,
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int(),
  responseSnippet: z.string().nullable().describe("at most 512 characters"),
  error: z.string().nullable(),
});

/** One attempt of a delivery. */
export type DeliveryAttempt = z.output<typeof deliveryAttempt>;

/** A delivery with its attempt log. */
export const delivery = z.object({
  deliveryId: z.string(),
  eventId: z.string().describe("the webhook-id header"),
  event: z.string(),
  txHash: z.string().nullable(),
  blockNumber: z.number().int().nullable(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  nextAttemptAt: timestamp.nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: timestamp,
  deliveredAt: timestamp.nullable(),
  attemptLog: z.array(deliveryAttempt),
});

/** A delivery with its attempt log. */
export type Delivery = z.output<typeof delivery>;

/** A webhook's circuit breaker (docs/webhooks.md "Fair delivery"). */
export const circuitState = z.object({
  state: z
    .enum(["closed", "open"])
    .describe("open: deliveries are held, without a request, until openUntil"),
  openUntil: timestamp.nullable(),
  reason: z.string().nullable(),
  consecutiveFailures: z
    .number()
    .int()
    .describe("timeouts or connection failures in a row; any HTTP answer resets it"),
});

/** The delivery log of a webhook, with its enabled state and why it was disabled. */
export const deliveryLog = z.object({
  webhookId: z.string(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  failingSince: timestamp.nullable(),
  circuit: circuitState,
  deliveries: z.array(delivery),
});

/** The delivery log of a webhook. */
export type DeliveryLog = z.output<typeof deliveryLog>;
