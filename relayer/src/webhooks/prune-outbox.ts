import type { Database } from "../db/client.js";

/**
 * Deletes outbox events released more than `retentionDays` ago whose deliveries are all final
 * (their deliveries and attempt logs go with them, by cascade). Safe to run from every process.
 *
 * @returns number of events deleted
 */
export async function pruneOutbox(database: Database, retentionDays = 30): Promise<number> {
  const { rowCount } = await database.pool.query(
    `DELETE FROM webhook_events e
     WHERE e.status = 'released' AND e.released_at < now() - make_interval(days => $1)
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status IN ('pending', 'retrying'))`,
    [retentionDays],
  );
  return rowCount ?? 0;
}
