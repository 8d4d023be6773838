import { randomBytes } from "node:crypto";
import { inTransaction, type Database } from "../db/client.js";
import type { Delivery, DeliveryLog } from "../domain/webhook.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { enqueueDeliveries, type DeliveryProducer } from "./delivery-queue.js";
import type { OutboxEvent } from "./event-kinds.js";
import { insertOutboxEvents } from "./outbox.js";

async function ownWebhook(database: Database, orgId: string, webhookId: string) {
  const { rows } = await database.pool.query<{
    id: string;
    enabled: boolean;
    disabled_reason: string | null;
    failing_since: Date | null;
  }>(
    `SELECT id, enabled, disabled_reason, failing_since FROM webhooks WHERE id = $1 AND org_id = $2 AND deleted_at IS NULL`,
    [webhookId, orgId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Webhook not found");
  return row;
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
  return {
    webhookId,
    enabled: webhook.enabled,
    disabledReason: webhook.disabled_reason,
    failingSince: webhook.failing_since?.toISOString() ?? null,
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
  database: Database,
  producer: DeliveryProducer,
  orgId: string,
  webhookId: string,
  deliveryId: string,
): Promise<{ deliveryId: string; queued: true }> {
  const webhook = await ownWebhook(database, orgId, webhookId);
  if (!webhook.enabled)
    throw new ConflictError(`Webhook is disabled: ${webhook.disabled_reason ?? "disabled"}`);
  const { rowCount } = await database.pool.query(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now()
     WHERE id = $1 AND webhook_id = $2`,
    [deliveryId, webhookId],
  );
  if (rowCount !== 1) throw new NotFoundError("Delivery not found");
  await enqueueDeliveries(producer, [{ id: deliveryId, webhookId }], {
    manual: true,
  });
  return { deliveryId, queued: true };
}

/**
 * Queues a `webhook.test` ping to one webhook (whatever its subscriptions), signed like every
 * delivery. Returns the ids to find it in the delivery log.
 */
export async function sendTestEvent(
  database: Database,
  producer: DeliveryProducer,
  orgId: string,
  webhookId: string,
): Promise<{ deliveryId: string; eventId: string; queued: true }> {
  await ownWebhook(database, orgId, webhookId);
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
    await enqueueDeliveries(producer, [{ id: deliveryId, webhookId }], { client, manual: true });
  });
  return { deliveryId, eventId, queued: true };
}
