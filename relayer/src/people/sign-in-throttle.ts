import { sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { RateLimitError } from "../errors.js";

/**
 * Sign-in throttling per account and per address (docs/people.md): at most
 * `ACCOUNT_FAILURES` failed sign-ins per email and `ADDRESS_FAILURES` per client address in any
 * `WINDOW_MS`; past either, 429 with `Retry-After` (until the oldest failure in the window ages
 * out), whether or not the next attempt would be right. Kept in PostgreSQL, so it holds across
 * relayer processes. An unknown email is throttled exactly like a known one.
 */

/** The window failures are counted over. */
export const WINDOW_MS = 15 * 60 * 1000;
/** Failed sign-ins per email in the window. */
export const ACCOUNT_FAILURES = 5;
/** Failed sign-ins per client address in the window (several people behind one NAT). */
export const ADDRESS_FAILURES = 20;

const subjects = (email: string, ip: string) => ({
  account: `email:${email}`,
  address: `ip:${ip}`,
});

/**
 * Refuses a sign-in while its account or its address is over its limit.
 *
 * @throws RateLimitError (429) with the seconds until an attempt is counted again
 */
export async function assertSignInAllowed(
  database: Pick<Database, "pool">,
  email: string,
  ip: string,
): Promise<void> {
  const { account, address } = subjects(email, ip);
  const { rows } = await database.pool.query<{ subject: string; n: number; oldest_ms: string }>(
    `SELECT subject, count(*)::int AS n,
            (extract(epoch FROM (min(at) + $2 * interval '1 millisecond' - now())) * 1000)::bigint::text AS oldest_ms
       FROM sign_in_failures
      WHERE subject = ANY($1::text[]) AND at > now() - $2 * interval '1 millisecond'
      GROUP BY subject`,
    [[account, address], WINDOW_MS],
  );
  for (const row of rows) {
    const limit = row.subject === account ? ACCOUNT_FAILURES : ADDRESS_FAILURES;
    if (row.n >= limit)
      throw new RateLimitError(
        Number(row.oldest_ms) / 1000,
        "Too many sign-in attempts; try again later",
      );
  }
}

/** Counts a failed sign-in against its account and its address. */
export async function recordSignInFailure(
  database: Pick<Database, "db">,
  email: string,
  ip: string,
): Promise<void> {
  const { account, address } = subjects(email, ip);
  await database.db.execute(
    sql`INSERT INTO sign_in_failures (subject) VALUES (${account}), (${address})`,
  );
}

/** A successful sign-in clears its account's failures (not its address's). */
export async function clearAccountFailures(
  database: Pick<Database, "db">,
  email: string,
): Promise<void> {
  await database.db.execute(
    sql`DELETE FROM sign_in_failures WHERE subject = ${subjects(email, "").account}`,
  );
}
