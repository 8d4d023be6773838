import { OUTCOME_COLUMNS, outcomeEventsSql } from "./outcome-events.js";

/**
 * The PostgreSQL notification channels of the engine's rows, and the SQL that sends them on
 * commit: shared by the store (`tx-store.ts`) and the lease-checked writes (`leased-tx-writes.ts`).
 */

/** Channels of PostgreSQL notifications the store sends (see `tx-notifier.ts`). */
export const TX_CHANNELS = {
  /** Payload: comma-separated ids of wallets with new queued work. */
  queued: "rwa_tx_queued",
  /** Payload: comma-separated ids of rows that became final. */
  final: "rwa_tx_final",
} as const;

/** NOTIFY payloads are limited to 8000 bytes: ids are sent in chunks of this many. */
const NOTIFY_CHUNK = 200;

/**
 * One statement that runs `update` (an `UPDATE transactions t ... RETURNING ${OUTCOME_COLUMNS}`)
 * and tells of the rows it made final (not `mined`): every process's waiting requests, a
 * `NOTIFY` per ${NOTIFY_CHUNK} ids, sent on commit, as `notifyFinal` does, and the webhooks, the
 * write's `transaction.*` event in the outbox (`outcome-events.ts`), without a transaction held
 * open across round trips. `$<channel>` is the parameter that carries `TX_CHANNELS.final`.
 */
export function updateNotifyingFinal(update: string, channel: number): string {
  return `WITH changed AS (${update}),
     events AS (${outcomeEventsSql("changed")}),
     notified AS (
       SELECT pg_notify($${channel}, string_agg(id, ',')) FROM (
         SELECT id, (row_number() OVER () - 1) / ${NOTIFY_CHUNK} AS chunk
           FROM changed WHERE state <> 'mined') final
        GROUP BY chunk)
   SELECT changed.id, changed.state FROM changed, (SELECT count(*) FROM notified) AS sent`;
}

/**
 * Tells of rows that became final in the caller's database transaction: waiting requests
 * (`notifyFinal`) and webhooks (the writes' `transaction.*` events, written in the outbox on
 * that transaction, `outcome-events.ts`).
 */
export async function announceFinal(
  client: { query: (text: string, values: unknown[]) => Promise<unknown> },
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await client.query(
    `WITH c AS (SELECT ${OUTCOME_COLUMNS} FROM transactions t WHERE t.id = ANY($1::text[]))
     ${outcomeEventsSql("c")}`,
    [ids],
  );
  await notifyFinal(client, ids);
}

/** The payloads of the notifications that carry `ids`: `NOTIFY_CHUNK` ids each, comma-separated. */
export function notifyPayloads(ids: readonly string[]): string[] {
  const payloads: string[] = [];
  for (let i = 0; i < ids.length; i += NOTIFY_CHUNK)
    payloads.push(ids.slice(i, i + NOTIFY_CHUNK).join(","));
  return payloads;
}

/** Tells every process's waiting requests that `ids` became final (`NOTIFY`, on commit). */
export async function notifyFinal(
  client: { query: (text: string, values: unknown[]) => Promise<unknown> },
  ids: readonly string[],
): Promise<void> {
  for (const payload of notifyPayloads(ids))
    await client.query("SELECT pg_notify($1, $2)", [TX_CHANNELS.final, payload]);
}
