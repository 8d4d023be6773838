import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { webhooks } from "./orgs.js";

/**
 * Webhook outbox. The indexer writes one row per (org, on-chain event) in the same database
 * transaction as the indexed rows; rows stay `pending` until their block has the configured
 * number of confirmations, then they are `released` (fanned out into `webhook_deliveries`).
 * Pending rows of blocks that vanish in a reorg are deleted, so they are never emitted.
 */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: text("id").primaryKey(), // evt_<hex>, deterministic; the `webhook-id` header
    orgId: text("org_id").notNull(),
    kind: text("kind").notNull(), // asset.issued, ..., webhook.test
    blockNumber: bigint("block_number", { mode: "number" }),
    blockHash: text("block_hash"),
    txHash: text("tx_hash"),
    logIndex: integer("log_index"),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").notNull().default("pending"), // pending | released
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    releasedAt: timestamp("released_at", { withTimezone: true }),
  },
  (t) => [
    index("webhook_events_pending_idx").on(t.status, t.blockNumber),
    index("webhook_events_org_created_idx").on(t.orgId, t.createdAt),
  ],
);

/** One row per webhook x event: the delivery's state machine. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(), // dlv_<hex>
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id),
    orgId: text("org_id").notNull(),
    eventId: text("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    status: text("status").notNull().default("pending"), // pending | retrying | delivered | failed | cancelled
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_webhook_event_key").on(t.webhookId, t.eventId),
    index("webhook_deliveries_webhook_idx").on(t.webhookId, t.createdAt),
    index("webhook_deliveries_status_idx").on(t.status, t.nextAttemptAt),
  ],
);

/** Log of every delivery attempt (status, latency, a response snippet of at most 512 characters). */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptNo: integer("attempt_no").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms").notNull(),
    responseSnippet: text("response_snippet"),
    error: text("error"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attemptNo)],
);
