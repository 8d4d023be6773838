import type { Database } from "../db/client.js";
import type { DeliveryHour, IssuanceDay } from "../domain/activity.js";

export type { DeliveryHour, IssuanceDay };

/**
 * Issuances per UTC day for the last `days` days (today included, oldest first, days without
 * issuance as 0), counted from the indexed `assets` rows minted by the organization's wallet.
 *
 * @example
 * await issuancesPerDay(db, "org_1", 7); // [{ day: "2026-11-18", issued: 0 }, ...]
 */
export async function issuancesPerDay(
  database: Database,
  orgId: string,
  days: number,
): Promise<IssuanceDay[]> {
  const { rows } = await database.pool.query<IssuanceDay>(
    `WITH w AS (SELECT lower(address) AS addr FROM wallets WHERE org_id = $1),
          d AS (SELECT generate_series(date_trunc('day', now() AT TIME ZONE 'UTC') - ($2::int - 1) * interval '1 day',
                                       date_trunc('day', now() AT TIME ZONE 'UTC'), interval '1 day') AS day)
     SELECT to_char(d.day, 'YYYY-MM-DD') AS day, count(a.token_id)::int AS issued
       FROM d
       LEFT JOIN assets a
         ON a.minter IN (SELECT addr FROM w)
        AND a.minted_at AT TIME ZONE 'UTC' >= d.day
        AND a.minted_at AT TIME ZONE 'UTC' < d.day + interval '1 day'
      GROUP BY d.day ORDER BY d.day`,
    [orgId, days],
  );
  return rows;
}

/**
 * Webhook deliveries per UTC hour for the last `hours` hours (the current hour included, oldest
 * first), from `webhook_deliveries` of the organization, bucketed by when the delivery was
 * created. Pending deliveries not yet attempted and cancelled ones are not counted.
 */
export async function deliveriesPerHour(
  database: Database,
  orgId: string,
  hours: number,
): Promise<DeliveryHour[]> {
  const { rows } = await database.pool.query<DeliveryHour>(
    `WITH h AS (SELECT generate_series(date_trunc('hour', now() AT TIME ZONE 'UTC') - ($2::int - 1) * interval '1 hour',
                                       date_trunc('hour', now() AT TIME ZONE 'UTC'), interval '1 hour') AS hour)
     SELECT to_char(h.hour, 'YYYY-MM-DD"T"HH24":00:00Z"') AS hour,
            count(*) FILTER (WHERE d.status = 'delivered' AND d.attempts <= 1)::int AS succeeded,
            count(*) FILTER (WHERE (d.status = 'delivered' AND d.attempts > 1)
                                OR (d.status IN ('retrying', 'pending') AND d.attempts > 0))::int AS retried,
            count(*) FILTER (WHERE d.status = 'failed')::int AS failed
       FROM h
       LEFT JOIN webhook_deliveries d
         ON d.org_id = $1
        AND d.created_at AT TIME ZONE 'UTC' >= h.hour
        AND d.created_at AT TIME ZONE 'UTC' < h.hour + interval '1 hour'
      GROUP BY h.hour ORDER BY h.hour`,
    [orgId, hours],
  );
  return rows;
}
