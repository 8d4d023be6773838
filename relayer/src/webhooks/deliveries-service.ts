import { randomBytes } from "node:crypto";
import { DEFAULT_WEBHOOK_MANUAL_PER_MINUTE } from "../config.js";
import type { AppContext } from "../context.js";
import { inTransaction, type Database } from "../db/client.js";
import type { Delivery, DeliveryLog } from "../domain/webhook.js";
import { ConflictError, NotFoundError, ValidationError } from "../errors.js";
import { consumeAllowance } from "../limits/rate-limiter.js";
import { isCircuitOpen } from "./circuit-breaker.js";
import { enqueueDeliveries } from "./delivery-queue.js";
import type { OutboxEvent } from "./event-kinds.js";
import { insertOutboxEvents } from "./outbox.js";

/** Longest range of one replay. */
export const MAX_REPLAY_DAYS = 31;
/** Most events one replay sends. */
export const MAX_REPLAY_EVENTS = 10_000;

/** The 429 message of test, redeliver and replay calls past the organization's allowance. */
export const MANUAL_LIMIT_MESSAGE = "Too many webhook test, redeliver or replay calls";

async function ownWebhook(database: Database, orgId: string, webhookId: string) {
  const { rows } = await database.pool.query<{
    id: string;
    enabled: boolean;
    disabled_reason: string | null;
    failing_since: Date | null;
    events: string[];
    consecutive_timeouts: number;
    circuit_open_until: Date | null;
    circuit_reason: string | null;
  }>(
    `SELECT id, enabled, disabled_reason, failing_since, events, consecutive_timeouts, circuit_open_until,
            circuit_reason
     FROM webhooks WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL`,
    [webhookId, orgId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Webhook not found");
  return row;
}

/**
 * Test, redeliver and replay calls send requests on the organization's behalf: they share one
 * allowance per organization (config.webhookManualPerMinute, default 30 a minute), so a loop of
 * them cannot fill the delivery queue.
 *
 * @throws RateLimitError (429 with Retry-After) `Too many webhook test, redeliver or replay calls`
 */
async function consumeManualCall(ctx: AppContext, orgId: string): Promise<void> {
  await consumeAllowance(
    ctx,
    `webhook-manual:${orgId}:m`,
    ctx.config.webhookManualPerMinute ?? DEFAULT_WEBHOOK_MANUAL_PER_MINUTE,
    60,
    MANUAL_LIMIT_MESSAGE,
  );
}

/**
 * The latest deliveries of one of the organization's webhooks (newest first, at most `limit`),
 * each with its attempts. Another organization's webhook is 404.
 */
export async function listDeliveries(
  database: Database,
  orgId: string,
  webhookId: string,
  limit = 50,
): Promise<DeliveryLog> {
  const webhook = await ownWebhook(database, orgId, webhookId);
  const { rows } = await database.pool.query<{
    id: string;
    event_id: string;
    kind: string;
    tx_hash: string | null;
    block_number: string | null;
    status: string;
    attempts: number;
    next_attempt_at: Date | null;
    last_status_code: number | null;
    last_error: string | null;
    created_at: Date;
    delivered_at: Date | null;
    attempt_log: Array<{
      attempt_no: number;
      started_at: string;
      status_code: number | null;
      latency_ms: number;
      response_snippet: string | null;
      error: string | null;
    }> | null;
  }>(
    `SELECT d.id, d.event_id, e.kind, e.tx_hash, e.block_number, d.status, d.attempts, d.next_attempt_at,
            d.last_status_code, d.last_error, d.created_at, d.delivered_at,
            (SELECT json_agg(a ORDER BY a.attempt_no) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS attempt_log
     FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
     WHERE d.webhook_id = $1 ORDER BY d.created_at DESC, d.id LIMIT $2`,
    [webhookId, limit],
  );
  const open = isCircuitOpen({ openUntil: webhook.circuit_open_until });
  return {
    webhookId,
    enabled: webhook.enabled,
    disabledReason: webhook.disabled_reason,
    failingSince: webhook.failing_since?.toISOString() ?? null,
    circuit: {
      state: open ? "open" : "closed",
      openUntil: open ? (webhook.circuit_open_until?.toISOString() ?? null) : null,
      reason: open ? webhook.circuit_reason : null,
      consecutiveFailures: webhook.consecutive_timeouts,
    },
    deliveries: rows.map((r) => ({
      deliveryId: r.id,
      eventId: r.event_id,
      event: r.kind,
      txHash: r.tx_hash,
      blockNumber: r.block_number === null ? null : Number(r.block_number),
      status: r.status as Delivery["status"],
      attempts: r.attempts,
      nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
      lastStatusCode: r.last_status_code,
      lastError: r.last_error,
      createdAt: r.created_at.toISOString(),
      deliveredAt: r.delivered_at?.toISOString() ?? null,
      attemptLog: (r.attempt_log ?? []).map((a) => ({
        attempt: a.attempt_no,
        startedAt: new Date(a.started_at).toISOString(),
        statusCode: a.status_code,
        latencyMs: a.latency_ms,
        responseSnippet: a.response_snippet,
        error: a.error,
      })),
    })),
  };
}

/**
 * Sends a delivery again now (same `webhook-id`, so receivers can tell it is the same event),
 * whatever its state.
 *
 * @throws NotFoundError for another org's or an unknown webhook/delivery; ConflictError (409)
 *   when the webhook is disabled
 */
export async function redeliver(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  deliveryId: string,
): Promise<{ deliveryId: string; queued: true }> {
  const { database } = ctx;
  const webhook = await ownWebhook(database, orgId, webhookId);
  await consumeManualCall(ctx, orgId);
  if (!webhook.enabled)
    throw new ConflictError(`Webhook is disabled: ${webhook.disabled_reason ?? "disabled"}`);
  const { rowCount } = await database.pool.query(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
     WHERE id = $1 AND webhook_id = $2`,
    [deliveryId, webhookId],
  );
  if (rowCount !== 1) throw new NotFoundError("Delivery not found");
  await enqueueDeliveries(ctx.deliveries, [{ id: deliveryId, orgId }], { manual: true });
  return { deliveryId, queued: true };
}

/**
 * Queues a `webhook.test` ping to one webhook (whatever its subscriptions), signed like every
 * delivery. Returns the ids to find it in the delivery log.
 */
export async function sendTestEvent(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
): Promise<{ deliveryId: string; eventId: string; queued: true }> {
  const { database } = ctx;
  await ownWebhook(database, orgId, webhookId);
  await consumeManualCall(ctx, orgId);
  const eventId = `evt_${randomBytes(16).toString("hex")}`;
  const deliveryId = `dlv_${randomBytes(12).toString("hex")}`;
  const event: OutboxEvent = {
    id: eventId,
    orgId,
    kind: "webhook.test",
    blockNumber: null,
    blockHash: null,
    txHash: null,
    logIndex: null,
    payload: {
      event: "webhook.test",
      timestamp: Date.now(),
      orgId,
      txHash: null,
      blockNumber: null,
      data: { webhookId },
    },
  };
  await inTransaction(database, async (client) => {
    await insertOutboxEvents(client, [event], "released");
    await client.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, status, next_attempt_at) VALUES ($1,$2,$3,$4,'pending',now())`,
      [deliveryId, webhookId, orgId, eventId],
    );
    await enqueueDeliveries(ctx.deliveries, [{ id: deliveryId, orgId }], { client, manual: true });
  });
  return { deliveryId, eventId, queued: true };
}

/**
 * Sends every event of the organization recorded between `from` and `to` (inclusive) whose kind
 * the webhook subscribes to now, again: each gets a delivery (a new one, or its existing one reset
 * to pending), with the same `webhook-id` as before, so receivers deduplicate what they already
 * have. Counts as one manual call.
 *
 * @throws ValidationError `Invalid range: from must be before to`,
 *   `Invalid range: at most 31 days`, `Replay range holds more than 10000 events; narrow it`;
 *   NotFoundError for another org's, an unknown or a deleted webhook; ConflictError when disabled
 */
export async function replayEvents(
  ctx: AppContext,
  orgId: string,
  webhookId: string,
  range: { from: Date; to: Date },
): Promise<{ webhookId: string; from: string; to: string; queued: number }> {
  const { from, to } = range;
  if (from.getTime() >= to.getTime())
    throw new ValidationError("Invalid range: from must be before to");
  if (to.getTime() - from.getTime() > MAX_REPLAY_DAYS * 86_400_000)
    throw new ValidationError(`Invalid range: at most ${MAX_REPLAY_DAYS} days`);
  const webhook = await ownWebhook(ctx.database, orgId, webhookId);
  if (!webhook.enabled)
    throw new ConflictError(`Webhook is disabled: ${webhook.disabled_reason ?? "disabled"}`);
  await consumeManualCall(ctx, orgId);
  const queued = await inTransaction(ctx.database, async (client) => {
    const { rows: events } = await client.query<{ id: string }>(
      `SELECT id FROM webhook_events
       WHERE org_id = $1 AND status = 'released' AND kind = ANY($2::text[]) AND created_at >= $3 AND created_at <= $4
       ORDER BY created_at, id LIMIT $5`,
      [orgId, webhook.events, from, to, MAX_REPLAY_EVENTS + 1],
    );
    if (events.length > MAX_REPLAY_EVENTS)
      throw new ValidationError(
        `Replay range holds more than ${MAX_REPLAY_EVENTS} events; narrow it`,
      );
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, status, next_attempt_at)
       SELECT 'dlv_' || substr(md5($1 || '|' || e.id), 1, 24), $1, $2, e.id, 'pending', now()
       FROM unnest($3::text[]) AS e(id)
       ON CONFLICT (webhook_id, event_id) DO UPDATE SET status = 'pending', next_attempt_at = now(), updated_at = now()
       RETURNING id`,
      [webhookId, orgId, events.map((e) => e.id)],
    );
    await enqueueDeliveries(
      ctx.deliveries,
      rows.map((r) => ({ id: r.id, orgId })),
      { client, manual: true },
    );
    return rows.length;
  });
  return { webhookId, from: from.toISOString(), to: to.toISOString(), queued };
}
