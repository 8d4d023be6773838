import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import {
  transactions,
  type TxAttempt,
  type TxReceiptSummary,
  type TxState,
} from "../db/schema/transactions.js";

/** A row of `transactions` as the engine sees it. */
export type TxRow = typeof transactions.$inferSelect;
/** Fields to insert a new row. */
export type NewTxRow = typeof transactions.$inferInsert;

/** States in which a row still needs work. */
export const LIVE_STATES: readonly TxState[] = ["queued", "sent"];
/** States in which a row is finished. */
export const FINAL_STATES: readonly TxState[] = ["mined", "confirmed", "failed", "replaced"];

/** Whether the row needs no more work. */
export function isFinal(row: Pick<TxRow, "state">): boolean {
  return FINAL_STATES.includes(row.state);
}

/**
 * Data access for `transactions`: the only place that writes the table. Every state change
 * stamps `updated_at` and the timestamp of the state it enters.
 */
export class TxStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  get database(): Database {
    return this.#database;
  }

  async get(id: string): Promise<TxRow | undefined> {
    const [row] = await this.#database.db
      .select()
      .from(transactions)
      .where(eq(transactions.id, id));
    return row;
  }

  /** The rows one drive works on: the children of a batch parent (by index), or the row itself. */
  async members(root: TxRow): Promise<TxRow[]> {
    if (root.kind !== "batch-issue") return [root];
    return this.children(root.id);
  }

  async children(parentId: string): Promise<TxRow[]> {
    return this.#database.db
      .select()
      .from(transactions)
      .where(eq(transactions.parentId, parentId))
      .orderBy(asc(transactions.itemIndex));
  }

  /**
   * Takes (or renews) the lease on a live root row. Fails when another process holds an
   * unexpired lease. The lease is what makes a dead process's work visible to the sweep.
   */
  async claimLease(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.#database.pool.query(
      // A lease taken over from a dead process drops its org slot too (running_since): the new
      // owner takes a slot of its own before driving.
      `UPDATE transactions SET locked_by = $2, locked_until = now() + ($3::int * interval '1 millisecond'), updated_at = now(),
              running_since = CASE WHEN locked_by = $2 THEN running_since ELSE NULL END
        WHERE id = $1 AND state IN ('queued', 'sent')
          AND (locked_by = $2 OR locked_until IS NULL OR locked_until < now())`,
      [id, owner, leaseMs],
    );
    return result.rowCount === 1;
  }

  /** Extends every lease `owner` holds on live rows. */
  async renewLeases(owner: string, leaseMs: number): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions SET locked_until = now() + ($2::int * interval '1 millisecond')
        WHERE locked_by = $1 AND state IN ('queued', 'sent')`,
      [owner, leaseMs],
    );
  }

  /** Whether a live root (or one of its children) already holds a nonce: it is on chain's path already. */
  async holdsNonce(rootId: string): Promise<boolean> {
    const result = await this.#database.pool.query(
      `SELECT 1 FROM transactions WHERE (id = $1 OR parent_id = $1) AND nonce IS NOT NULL AND state IN ('queued', 'sent') LIMIT 1`,
      [rootId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Gives a lease back (the row stays live; the next job or the sweep continues it). */
  async releaseLease(id: string, owner: string): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions SET locked_by = NULL, locked_until = NULL, running_since = NULL WHERE id = $1 AND locked_by = $2`,
      [id, owner],
    );
  }

  /** Deletes expired `Idempotency-Key` records (kept 24 h). Returns how many went. */
  async purgeExpiredIdempotencyKeys(): Promise<number> {
    const result = await this.#database.pool.query(
      "DELETE FROM idempotency_keys WHERE expires_at <= now()",
    );
    return result.rowCount ?? 0;
  }

  /** Root rows that are live and whose lease expired (or were never claimed): work a dead process left. */
  async orphans(graceMs: number, limit = 500): Promise<Array<{ id: string; orgId: string }>> {
    const result = await this.#database.pool.query<{ id: string; org_id: string }>(
      `SELECT id, org_id FROM transactions
        WHERE parent_id IS NULL AND state IN ('queued', 'sent')
          AND ((locked_until IS NOT NULL AND locked_until < now())
               OR (locked_until IS NULL AND updated_at < now() - ($1::int * interval '1 millisecond')))
        ORDER BY created_at LIMIT $2`,
      [graceMs, limit],
    );
    return result.rows.map((r) => ({ id: r.id, orgId: r.org_id }));
  }

  /** Number of live root rows of an org (the queue length used for 429). */
  async liveRootCount(orgId: string): Promise<number> {
    const result = await this.#database.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM transactions WHERE org_id = $1 AND parent_id IS NULL AND state IN ('queued', 'sent')`,
      [orgId],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  async setGasLimit(id: string, gasLimit: bigint): Promise<void> {
    await this.#database.db
      .update(transactions)
      .set({ gasLimit: gasLimit.toString(), updatedAt: sql`now()` })
      .where(eq(transactions.id, id));
  }

  /** Records a signed attempt (before it is broadcast) and moves the row to `sent`. */
  async recordAttempt(id: string, attempt: TxAttempt): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions
          SET attempts = attempts || $2::jsonb, state = 'sent', sent_at = coalesce(sent_at, now()),
              max_fee_per_gas = $3, max_priority_fee_per_gas = $4, updated_at = now()
        WHERE id = $1`,
      [id, JSON.stringify([attempt]), attempt.maxFeePerGas, attempt.maxPriorityFeePerGas],
    );
  }

  /** The row's nonce was consumed by another transaction: it goes back to the queue for a new nonce. */
  async requeue(id: string): Promise<void> {
    await this.#database.db
      .update(transactions)
      .set({ nonce: null, state: "queued", updatedAt: sql`now()` })
      .where(eq(transactions.id, id));
  }

  /** Stores a receipt with status 1 and the result the API reports. */
  async markConfirmed(
    id: string,
    receipt: TxReceiptSummary,
    result: Record<string, unknown>,
  ): Promise<void> {
    await this.#database.db
      .update(transactions)
      .set({
        state: "confirmed",
        receipt,
        result,
        lastError: null,
        minedAt: sql`now()`,
        confirmedAt: sql`now()`,
        runningSince: null,
        updatedAt: sql`now()`,
      })
      .where(eq(transactions.id, id));
  }

  /** Marks the row failed; `errorKind` says how the API surfaces `error`. */
  async markFailed(
    id: string,
    error: string,
    errorKind: "revert" | "rejected" | "internal",
    receipt?: TxReceiptSummary,
  ): Promise<void> {
    await this.#database.db
      .update(transactions)
      .set({
        state: "failed",
        error,
        errorKind,
        receipt: receipt ?? null,
        lastError: null,
        minedAt: receipt === undefined ? null : sql`now()`,
        failedAt: sql`now()`,
        runningSince: null,
        updatedAt: sql`now()`,
      })
      .where(eq(transactions.id, id));
  }

  /** Marks a row whose nonce went to a gap filler. */
  async markReplaced(id: string, error: string): Promise<void> {
    await this.#database.db
      .update(transactions)
      .set({
        state: "replaced",
        error,
        errorKind: "rejected",
        replacedAt: sql`now()`,
        runningSince: null,
        updatedAt: sql`now()`,
      })
      .where(eq(transactions.id, id));
  }

  /** Sets or clears the transient problem of live rows (read by waiting API calls). */
  async setLastError(ids: readonly string[], lastError: string | null): Promise<void> {
    if (ids.length === 0) return;
    await this.#database.db
      .update(transactions)
      .set({ lastError, updatedAt: sql`now()` })
      .where(
        and(inArray(transactions.id, [...ids]), inArray(transactions.state, [...LIVE_STATES])),
      );
  }

  /** Sets a batch parent's final state and aggregated result. */
  async finishParent(id: string, state: TxState, result: Record<string, unknown>): Promise<void> {
    await this.#database.db
      .update(transactions)
      .set({
        state,
        result,
        lastError: null,
        runningSince: null,
        confirmedAt: state === "confirmed" ? sql`now()` : null,
        failedAt: state === "failed" ? sql`now()` : null,
        updatedAt: sql`now()`,
      })
      .where(eq(transactions.id, id));
  }

  /** Moves a batch parent to `sent` once its children are broadcast. */
  async markParentSent(id: string): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions SET state = 'sent', sent_at = coalesce(sent_at, now()), updated_at = now() WHERE id = $1 AND state = 'queued'`,
      [id],
    );
  }
}

/**
 * Wei a wallet has committed to live transactions (value + gas limit × fee cap), so concurrent
 * writes are checked against what is really left.
 */
export async function reservedWei(database: Database, walletId: string): Promise<bigint> {
  const result = await database.pool.query<{ n: string | null }>(
    `SELECT coalesce(sum(value::numeric + coalesce(gas_limit, '0')::numeric * coalesce(max_fee_per_gas, '0')::numeric), 0)::text AS n
       FROM transactions WHERE wallet_id = $1 AND state IN ('queued', 'sent') AND kind <> 'batch-issue'`,
    [walletId],
  );
  return BigInt((result.rows[0]?.n ?? "0").split(".")[0] ?? "0");
}
