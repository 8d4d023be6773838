import type { Database } from "../db/client.js";

/** Write operations one organization may have executing at once (spec section 8). */
export const MAX_IN_FLIGHT_PER_ORG = 10;

/**
 * The per-organization in-flight limit, shared by every relayer process: a root row holds a slot
 * while `running_since` is set and its lease is alive. Slots are taken under a transaction-scoped
 * advisory lock on the org, so two processes cannot both take the tenth slot. A batch counts as
 * one operation (spec 8: "a batch operation counts as one request").
 */
export class OrgSlots {
  readonly #database: Database;
  readonly #limit: number;

  constructor(database: Database, limit = MAX_IN_FLIGHT_PER_ORG) {
    this.#database = database;
    this.#limit = limit;
  }

  /** Takes a slot for `rootId` if fewer than the limit are taken. */
  async tryAcquire(orgId: string, rootId: string): Promise<boolean> {
    const client = await this.#database.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 4242))", [orgId]);
      const count = await client.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM transactions
          WHERE org_id = $1 AND parent_id IS NULL AND state IN ('queued', 'sent')
            AND running_since IS NOT NULL AND locked_until > now() AND id <> $2`,
        [orgId, rootId],
      );
      const ok = Number(count.rows[0]?.n ?? 0) < this.#limit;
      if (ok)
        await client.query(`UPDATE transactions SET running_since = now() WHERE id = $1`, [rootId]);
      await client.query("COMMIT");
      return ok;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** Marks a root as running without checking the limit (work that already holds a nonce). */
  async takeUnchecked(rootId: string): Promise<void> {
    await this.#database.pool.query(`UPDATE transactions SET running_since = now() WHERE id = $1`, [
      rootId,
    ]);
  }

  /** Gives the slot back. */
  async release(rootId: string): Promise<void> {
    await this.#database.pool.query(`UPDATE transactions SET running_since = NULL WHERE id = $1`, [
      rootId,
    ]);
  }
}
