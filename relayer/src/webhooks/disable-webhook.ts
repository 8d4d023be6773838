import { createHash } from "node:crypto";
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { enqueueDeliveries } from "./delivery-queue.js";
import type { OutboxEvent } from "./event-kinds.js";
import { insertOutboxEvents } from "./outbox.js";

/**
 * Disables a webhook (if still enabled) with `reason`, and in the same transaction sends a
 * `webhook.disabled` notice to the organization's other enabled webhooks, whatever their
 * subscriptions (docs/webhooks.md "webhook.disabled"). The list answer (`disabledReason`,
 * `disabledAt`) shows it in the console.
 *
 * @returns whether this call disabled it (false when it was already disabled or deleted)
 */
export async function disableWebhook(
  client: pg.ClientBase,
  boss: PgBoss,
  webhookId: string,
  reason: string,
): Promise<boolean> {
  const { rows } = await client.query<{ org_id: string; url: string; disabled_at: Date }>(
    `UPDATE webhooks SET enabled = false, disabled_reason = $2, disabled_at = now()
     WHERE id = $1 AND enabled AND deleted_at IS NULL
     RETURNING org_id, url, disabled_at`,
    [webhookId, reason],
  );
  const row = rows[0];
  if (row === undefined) return false;
  const eventId = `evt_${createHash("sha256").update(`webhook.disabled|${webhookId}|${row.disabled_at.toISOString()}`).digest("hex").slice(0, 32)}`;
  const event: OutboxEvent = {
    id: eventId,
    orgId: row.org_id,
    kind: "webhook.disabled",
    blockNumber: null,
    blockHash: null,
    txHash: null,
    logIndex: null,
    payload: {
      event: "webhook.disabled",
      timestamp: row.disabled_at.getTime(),
      orgId: row.org_id,
      txHash: null,
      blockNumber: null,
      data: { webhookId, url: row.url, reason, disabledAt: row.disabled_at.toISOString() },
    },
  };
  await insertOutboxEvents(client, [event], "released");
  const { rows: deliveries } = await client.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, status, next_attempt_at)
     SELECT 'dlv_' || substr(md5(w.id || '|' || $2), 1, 24), w.id, w.org_id, $2, 'pending', now()
     FROM webhooks w WHERE w.org_id = $1 AND w.id <> $3 AND w.enabled AND w.deleted_at IS NULL
     ON CONFLICT DO NOTHING
     RETURNING id`,
    [row.org_id, eventId, webhookId],
  );
  await enqueueDeliveries(
    boss,
    deliveries.map((d) => ({ id: d.id, orgId: row.org_id })),
    { client },
  );
  return true;
}
