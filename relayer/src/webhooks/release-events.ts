import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { enqueueDeliveries, type DeliveryRef } from "./delivery-queue.js";

/**
 * Releases the outbox events of blocks up to `upToBlock` (they have their confirmations): one
 * `webhook_deliveries` row per subscribed, enabled webhook of the event's organization, and one
 * pg-boss job per delivery, all on the caller's transaction.
 *
 * @returns number of deliveries created
 */
export async function releaseConfirmedEvents(
  client: pg.ClientBase,
  boss: PgBoss,
  upToBlock: number,
): Promise<number> {
  // The oldest pending event first, by a plain index scan of webhook_events_pending_idx. A
  // released event leaves its `pending` version's entry in that index until a vacuum, and the
  // UPDATE below did not clear them: late in a bench run with autovacuum off, each release read
  // about 30,000 entries (80 ms). A plain index scan marks the dead entries it passes, and later
  // scans skip them. Nothing pending up to the block (NULLs sort last): nothing to release.
  //
  // A pending event without a block (a write's outcome with nothing mined: `transaction.failed`
  // of a write refused before it was sent) needs no confirmations: released at the next call.
  const { rows: oldest } = await client.query<{ block: string | null; blockless: boolean }>(
    `SELECT (SELECT block_number::text FROM webhook_events
              WHERE status = 'pending' ORDER BY block_number LIMIT 1) AS block,
            EXISTS (SELECT 1 FROM webhook_events
                     WHERE status = 'pending' AND block_number IS NULL) AS blockless`,
  );
  const block = oldest[0]?.block;
  const blockless = oldest[0]?.blockless === true;
  if (!blockless && (block === undefined || block === null || Number(block) > upToBlock)) return 0;
  const { rows } = await client.query<{ id: string; org_id: string }>(
    `WITH ev AS (
       UPDATE webhook_events SET status = 'released', released_at = now()
       WHERE status = 'pending' AND (block_number <= $1 OR block_number IS NULL)
       RETURNING id, org_id, kind)
     INSERT INTO webhook_deliveries (id, webhook_id, org_id, event_id, status, next_attempt_at)
     SELECT 'dlv_' || substr(md5(w.id || '|' || ev.id), 1, 24), w.id, ev.org_id, ev.id, 'pending', now()
     FROM ev JOIN webhooks w ON w.org_id = ev.org_id AND w.enabled AND w.deleted_at IS NULL AND ev.kind = ANY(w.events)
     ON CONFLICT DO NOTHING
     RETURNING id, org_id`,
    [upToBlock],
  );
  const refs: DeliveryRef[] = rows.map((r) => ({ id: r.id, orgId: r.org_id }));
  await enqueueDeliveries(boss, refs, { client });
  return refs.length;
}
