import type pg from "pg";
import type { OutboxEvent } from "./event-kinds.js";

/**
 * Writes events into the outbox on the caller's client, so they commit (or not) with the rows
 * that produced them. Ids are deterministic, so writing the same event twice is a no-op.
 *
 * @param status `pending` (chain events, released after confirmations) or `released`
 */
export async function insertOutboxEvents(
  client: pg.ClientBase,
  events: readonly OutboxEvent[],
  status: "pending" | "released" = "pending",
): Promise<void> {
  if (events.length === 0) return;
  await client.query(
    `INSERT INTO webhook_events (id, org_id, kind, block_number, block_hash, tx_hash, log_index, payload, status, released_at)
     SELECT e.id, e.org_id, e.kind, e.block_number, e.block_hash, e.tx_hash, e.log_index, e.payload, $2,
            CASE WHEN $2 = 'released' THEN now() END
     FROM jsonb_to_recordset($1::jsonb) AS e(id text, org_id text, kind text, block_number bigint, block_hash text,
                                             tx_hash text, log_index int, payload jsonb)
     ON CONFLICT (id) DO NOTHING`,
    [
      JSON.stringify(
        events.map((e) => ({
          id: e.id,
          org_id: e.orgId,
          kind: e.kind,
          block_number: e.blockNumber,
          block_hash: e.blockHash,
          tx_hash: e.txHash,
          log_index: e.logIndex,
          payload: e.payload,
        })),
      ),
      status,
    ],
  );
}
