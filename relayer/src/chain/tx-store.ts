import { asc, eq, inArray, sql } from "drizzle-orm";
import type pg from "pg";
import { inTransaction, type Database } from "../db/client.js";
import { idempotencyKeys, transactions } from "../db/schema/index.js";
import {
  IllegalTransitionError,
  LIVE_STATES,
  sourcesOf,
  type TxAttempt,
  type TxErrorKind,
  type TxReceiptSummary,
  type TxState,
} from "./tx-lifecycle.js";

/** A row of `transactions` as the engine sees it. */
export type TxRow = typeof transactions.$inferSelect;
/** Fields to insert a new row. */
export type NewTxRow = typeof transactions.$inferInsert;

/** Channels of PostgreSQL notifications the store sends (see `tx-notifier.ts`). */
export const TX_CHANNELS = {
  /** Payload: a wallet id with new queued work. */
  queued: "rwa_tx_queued",
  /** Payload: comma-separated ids of rows that became final. */
  final: "rwa_tx_final",
} as const;

/** A wallet leased by this process. */
export interface LeasedWallet {
  id: string;
  orgId: string;
  address: string;
  encryptedKey: string;
  nextNonce: number | null;
}

/** One row's first broadcast: its nonce and first attempt, written together. */
export interface SentEntry {
  id: string;
  nonce: number;
  attempt: TxAttempt;
}

/** How a sent row ended. */
export type Finalisation =
  | { id: string; status: "confirmed"; receipt: TxReceiptSummary; result: Record<string, unknown> }
  | {
      id: string;
      status: "failed";
      reason: string;
      errorKind: TxErrorKind;
      receipt: TxReceiptSummary | null;
    };

/** An `Idempotency-Key` claim made together with a write's rows. */
export interface IdempotencyClaim {
  orgId: string;
  key: string;
  requestHash: string;
  ttlMs: number;
}

/** NOTIFY payloads are limited to 8000 bytes: ids are sent in chunks of this many. */
const NOTIFY_CHUNK = 200;

/**
 * Data access for `transactions`: the only place that writes the table. Every change of state is
 * checked against the lifecycle (`tx-lifecycle.ts`): updates only touch rows whose current state
 * may move to the new one, so an illegal transition changes nothing and is reported. Hot paths
 * are plain parameterised SQL, one statement per round for many rows.
 */
export class TxStore {
  readonly #database: Database;
  /** `getSoon` callers waiting for the next shared read, by row id. */
  #soon = new Map<
    string,
    Array<{ resolve: (row: TxRow | undefined) => void; reject: (error: unknown) => void }>
  >();

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

  /**
   * `get`, shared by every caller in the same turn of the event loop: the rows asked for are read
   * in one statement sent on the next turn (a block that settles a hundred writes wakes a hundred
   * waiting requests at once: one query, not a hundred). Sent after the call, so never older
   * than it.
   */
  getSoon(id: string): Promise<TxRow | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.#soon.get(id);
      if (waiting === undefined) this.#soon.set(id, [{ resolve, reject }]);
      else waiting.push({ resolve, reject });
      if (this.#soon.size === 1 && waiting === undefined) setImmediate(() => void this.#readSoon());
    });
  }

  async #readSoon(): Promise<void> {
    const batch = this.#soon;
    this.#soon = new Map();
    try {
      const rows = await this.#database.db
        .select()
        .from(transactions)
        .where(inArray(transactions.id, [...batch.keys()]));
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const [id, waiters] of batch) for (const w of waiters) w.resolve(byId.get(id));
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
    }
  }

  async children(parentId: string): Promise<TxRow[]> {
    return this.#database.db
      .select()
      .from(transactions)
      .where(eq(transactions.parentId, parentId))
      .orderBy(asc(transactions.itemIndex));
  }

  /**
   * Records a write's rows (and its `Idempotency-Key` claim) in one database transaction and
   * tells every relayer process that the wallet has work (`NOTIFY`, sent on commit). Without a
   * claim that is one statement.
   *
   * @returns false when another request holds the idempotency key (nothing was written)
   */
  async record(
    walletId: string,
    rows: readonly NewTxRow[],
    claim: IdempotencyClaim | undefined,
  ): Promise<boolean> {
    const rootId = rows[0]?.id;
    if (rootId === undefined) throw new Error("record: no rows");
    if (claim === undefined) {
      // One statement, so one round trip and one commit: the rows, and the wake-up sent when
      // they commit.
      const insert = this.#database.db
        .insert(transactions)
        .values([...rows])
        .toSQL();
      const n = insert.params.length;
      await this.#database.pool.query(
        `WITH recorded AS (${insert.sql} RETURNING 1) SELECT pg_notify($${n + 1}, $${n + 2})`,
        [...insert.params, TX_CHANNELS.queued, walletId],
      );
      return true;
    }
    return this.#database.db.transaction(async (tx) => {
      const claimed = await tx
        .insert(idempotencyKeys)
        .values({
          orgId: claim.orgId,
          key: claim.key,
          requestHash: claim.requestHash,
          transactionId: rootId,
          // From the database clock, like created_at: exactly the TTL apart.
          expiresAt: sql`now() + ${claim.ttlMs} * interval '1 millisecond'`,
        })
        // An expired record (kept past its TTL until the purge removes it) is taken over.
        .onConflictDoUpdate({
          target: [idempotencyKeys.orgId, idempotencyKeys.key],
          set: {
            requestHash: claim.requestHash,
            transactionId: rootId,
            createdAt: sql`now()`,
            expiresAt: sql`excluded.expires_at`,
          },
          setWhere: sql`${idempotencyKeys.expiresAt} <= now()`,
        })
        .returning({ key: idempotencyKeys.key });
      if (claimed.length === 0) return false;
      await tx.insert(transactions).values([...rows]);
      await tx.execute(sql`SELECT pg_notify(${TX_CHANNELS.queued}, ${walletId})`);
      return true;
    });
  }

  /**
   * What a new write of an org is checked against, in one round trip: its wallet, how many of
   * its writes are live (the queue length used for 429), and the wei its live writes reserved
   * (value + gas limit × fee cap).
   */
  async writerState(orgId: string): Promise<
    | {
        wallet: { id: string; orgId: string; address: string };
        liveRoots: number;
        reservedWei: bigint;
      }
    | undefined
  > {
    const result = await this.#database.pool.query<{
      id: string;
      org_id: string;
      address: string;
      live_roots: number;
      reserved: string;
    }>(
      `SELECT w.id, w.org_id, w.address,
              (SELECT count(*) FROM transactions t
                WHERE t.org_id = w.org_id AND t.parent_id IS NULL AND t.state IN ('queued', 'sent'))::int AS live_roots,
              (SELECT coalesce(sum(t.value::numeric + coalesce(t.gas_limit, '0')::numeric
                                   * coalesce(t.fee_cap, t.max_fee_per_gas, '0')::numeric), 0)
                 FROM transactions t
                WHERE t.wallet_id = w.id AND t.state IN ('queued', 'sent') AND t.kind <> 'batch-issue')::text AS reserved
         FROM wallets w WHERE w.org_id = $1`,
      [orgId],
    );
    const row = result.rows[0];
    if (row === undefined) return undefined;
    return {
      wallet: { id: row.id, orgId: row.org_id, address: row.address },
      liveRoots: row.live_roots,
      reservedWei: BigInt(row.reserved.split(".")[0] ?? "0"),
    };
  }

  /** Number of live root rows of an org (the queue length used for 429). */
  async liveRootCount(orgId: string): Promise<number> {
    const result = await this.#database.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM transactions WHERE org_id = $1 AND parent_id IS NULL AND state IN ('queued', 'sent')`,
      [orgId],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  /** Wallets that have live rows (work for some sequencer). */
  async walletsWithWork(limit = 10_000): Promise<string[]> {
    const result = await this.#database.pool.query<{ wallet_id: string }>(
      `SELECT DISTINCT wallet_id FROM transactions WHERE state IN ('queued', 'sent') LIMIT $1`,
      [limit],
    );
    return result.rows.map((r) => r.wallet_id);
  }

  /**
   * Takes the leases of `walletIds` that are free, expired or already `owner`'s, and renews them.
   * A lease is what makes one process the only sequencer of a wallet.
   */
  async claimWallets(
    owner: string,
    walletIds: readonly string[],
    leaseMs: number,
  ): Promise<LeasedWallet[]> {
    if (walletIds.length === 0) return [];
    const result = await this.#database.pool.query<{
      id: string;
      org_id: string;
      address: string;
      encrypted_key: string;
      next_nonce: string | null;
    }>(
      `UPDATE wallets SET lease_owner = $1, lease_until = now() + ($3::int * interval '1 millisecond')
        WHERE id = ANY($2::text[]) AND (lease_owner IS NULL OR lease_owner = $1 OR lease_until < now())
        RETURNING id, org_id, address, encrypted_key, next_nonce::text`,
      [owner, walletIds, leaseMs],
    );
    return result.rows.map((r) => ({
      id: r.id,
      orgId: r.org_id,
      address: r.address,
      encryptedKey: r.encrypted_key,
      nextNonce: r.next_nonce === null ? null : Number(r.next_nonce),
    }));
  }

  /** Renews `owner`'s leases on `walletIds`; returns the ids still held. */
  async renewLeases(
    owner: string,
    walletIds: readonly string[],
    leaseMs: number,
  ): Promise<string[]> {
    if (walletIds.length === 0) return [];
    const result = await this.#database.pool.query<{ id: string }>(
      `UPDATE wallets SET lease_until = now() + ($3::int * interval '1 millisecond')
        WHERE id = ANY($2::text[]) AND lease_owner = $1 RETURNING id`,
      [owner, walletIds, leaseMs],
    );
    return result.rows.map((r) => r.id);
  }

  /** Gives leases back (on stop, or when a wallet has no work left). */
  async releaseLeases(owner: string, walletIds?: readonly string[]): Promise<void> {
    await this.#database.pool.query(
      walletIds === undefined
        ? `UPDATE wallets SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`
        : `UPDATE wallets SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND id = ANY($2::text[])`,
      walletIds === undefined ? [owner] : [owner, walletIds],
    );
  }

  /** Every live row of a wallet (roots and batch children), oldest first, batch items in order. */
  async liveRowsOfWallet(walletId: string): Promise<TxRow[]> {
    return this.#database.db
      .select()
      .from(transactions)
      .where(
        sql`${transactions.walletId} = ${walletId} AND ${transactions.state} IN ('queued', 'sent')`,
      )
      .orderBy(asc(transactions.createdAt), asc(transactions.itemIndex), asc(transactions.id));
  }

  /** Stores a gas limit estimated by the sequencer for a row recorded without one. */
  async setGasLimit(id: string, gasLimit: bigint): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions SET gas_limit = $2, updated_at = now() WHERE id = $1 AND state = 'queued'`,
      [id, gasLimit.toString()],
    );
  }

  /**
   * One round's first broadcasts, written before anything is sent: each row gets its nonce and
   * its first attempt and moves to `sent`; batch parents of those rows move to `sent`; the
   * wallet's next nonce advances. One statement.
   */
  async markSent(
    walletId: string,
    nextNonce: number,
    entries: readonly SentEntry[],
  ): Promise<void> {
    if (entries.length === 0) return;
    const from = sourcesOf("sent");
    const result = await this.#database.pool.query<{ n: string }>(
      `WITH moved AS (
         UPDATE transactions t
            SET nonce = e.nonce, state = 'sent', attempts = jsonb_build_array(e.attempt),
                max_fee_per_gas = e.attempt->>'maxFeePerGas',
                max_priority_fee_per_gas = e.attempt->>'maxPriorityFeePerGas',
                sent_at = coalesce(t.sent_at, now()), last_error = NULL, updated_at = now()
           FROM unnest($2::text[], $3::bigint[], $4::jsonb[]) AS e(id, nonce, attempt)
          WHERE t.id = e.id AND t.state = ANY($5::text[]) AND t.nonce IS NULL
          RETURNING t.parent_id),
       parents AS (
         UPDATE transactions p SET state = 'sent', sent_at = coalesce(p.sent_at, now()), updated_at = now()
          WHERE p.id IN (SELECT parent_id FROM moved WHERE parent_id IS NOT NULL) AND p.state = 'queued'),
       wallet AS (UPDATE wallets SET next_nonce = $6 WHERE id = $1)
       SELECT count(*)::text AS n FROM moved`,
      [
        walletId,
        entries.map((e) => e.id),
        entries.map((e) => e.nonce),
        entries.map((e) => JSON.stringify(e.attempt)),
        from,
        nextNonce,
      ],
    );
    const moved = Number(result.rows[0]?.n ?? 0);
    if (moved !== entries.length)
      throw new IllegalTransitionError(
        `markSent: ${entries.length - moved} of ${entries.length} rows were not queued without a nonce`,
      );
  }

  /** Appends re-pricing attempts (same nonce, higher fees) to sent rows. One statement. */
  async addAttempts(entries: ReadonlyArray<{ id: string; attempt: TxAttempt }>): Promise<void> {
    if (entries.length === 0) return;
    await this.#database.pool.query(
      `UPDATE transactions t
          SET attempts = t.attempts || jsonb_build_array(e.attempt),
              max_fee_per_gas = e.attempt->>'maxFeePerGas',
              max_priority_fee_per_gas = e.attempt->>'maxPriorityFeePerGas', updated_at = now()
         FROM unnest($1::text[], $2::jsonb[]) AS e(id, attempt)
        WHERE t.id = e.id AND t.state = 'sent'`,
      [entries.map((e) => e.id), entries.map((e) => JSON.stringify(e.attempt))],
    );
  }

  /** Notes that the node refused an attempt for good (it can never be mined). */
  async refuseAttempt(id: string, hash: string, reason: string): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions
          SET attempts = (SELECT jsonb_agg(CASE WHEN a->>'hash' = $2 THEN a || jsonb_build_object('refused', $3::text) ELSE a END ORDER BY ord)
                            FROM jsonb_array_elements(attempts) WITH ORDINALITY AS x(a, ord)),
              updated_at = now()
        WHERE id = $1 AND state = 'sent'`,
      [id, hash, reason],
    );
  }

  /**
   * Final states of rows whose nonce the chain consumed (or that reverted), in one statement;
   * waiting requests in every process are told (`NOTIFY`, on commit).
   *
   * @returns the ids that changed (a row already final elsewhere is left alone)
   */
  async finalise(entries: readonly Finalisation[]): Promise<string[]> {
    if (entries.length === 0) return [];
    return this.#inTransaction(async (client) => {
      const result = await client.query<{ id: string }>(
        `UPDATE transactions t
          SET state = e.state, receipt = e.receipt, result = e.result, error = e.error,
              error_kind = e.error_kind, last_error = NULL, updated_at = now(),
              mined_at = CASE WHEN e.receipt IS NULL THEN NULL ELSE now() END,
              confirmed_at = CASE WHEN e.state = 'confirmed' THEN now() END,
              failed_at = CASE WHEN e.state = 'failed' THEN now() END
         FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[], $5::text[], $6::text[])
              AS e(id, state, receipt, result, error, error_kind)
        WHERE t.id = e.id AND t.state = ANY($7::text[])
        RETURNING t.id`,
        [
          entries.map((e) => e.id),
          entries.map((e) => e.status),
          entries.map((e) => (e.receipt === null ? null : JSON.stringify(e.receipt))),
          entries.map((e) => (e.status === "confirmed" ? JSON.stringify(e.result) : null)),
          entries.map((e) => (e.status === "failed" ? e.reason : null)),
          entries.map((e) => (e.status === "failed" ? e.errorKind : null)),
          sourcesOf("confirmed"),
        ],
      );
      const ids = result.rows.map((r) => r.id);
      await notifyIds(client, ids);
      return ids;
    });
  }

  /** Fails queued rows that were never broadcast (estimate reverted, refused at first send). */
  async failUnsent(
    entries: ReadonlyArray<{ id: string; reason: string; errorKind: TxErrorKind }>,
  ): Promise<string[]> {
    if (entries.length === 0) return [];
    return this.#inTransaction(async (client) => {
      const result = await client.query<{ id: string }>(
        `UPDATE transactions t
          SET state = 'failed', error = e.error, error_kind = e.error_kind, last_error = NULL,
              failed_at = now(), updated_at = now()
         FROM unnest($1::text[], $2::text[], $3::text[]) AS e(id, error, error_kind)
        WHERE t.id = e.id AND t.state = ANY($4::text[])
        RETURNING t.id`,
        [
          entries.map((e) => e.id),
          entries.map((e) => e.reason),
          entries.map((e) => e.errorKind),
          sourcesOf("failed"),
        ],
      );
      const ids = result.rows.map((r) => r.id);
      await notifyIds(client, ids);
      return ids;
    });
  }

  /**
   * A sent row whose only attempts were refused, with a nonce later rows depend on: its nonce
   * goes to a self-transfer (recorded here as a `sent` `nonce-fill` row with its attempt) and the
   * row ends `replaced`. One database transaction.
   */
  async replaceWithFiller(
    row: TxRow,
    reason: string,
    filler: { id: string; attempt: TxAttempt },
  ): Promise<void> {
    await this.#inTransaction(async (client) => {
      const replaced = await client.query(
        `UPDATE transactions SET state = 'replaced', error = $2, error_kind = 'rejected',
              replaced_at = now(), updated_at = now()
        WHERE id = $1 AND state = ANY($3::text[])`,
        [row.id, reason, sourcesOf("replaced")],
      );
      if (replaced.rowCount !== 1)
        throw new IllegalTransitionError(`transaction ${row.id} cannot be replaced`);
      await client.query(
        `INSERT INTO transactions (id, org_id, wallet_id, kind, mode, request_hash, from_address, to_address,
                                 data, value, gas_limit, nonce, state, attempts, max_fee_per_gas,
                                 max_priority_fee_per_gas, fee_cap, context, sent_at)
       VALUES ($1, $2, $3, 'nonce-fill', 'async', '', $4, $4, '0x', '0', '21000', $5, 'sent',
               jsonb_build_array($6::jsonb), $7, $8, $7, $9, now())`,
        [
          filler.id,
          row.orgId,
          row.walletId,
          row.fromAddress,
          row.nonce,
          JSON.stringify(filler.attempt),
          filler.attempt.maxFeePerGas,
          filler.attempt.maxPriorityFeePerGas,
          JSON.stringify({ fills: row.id }),
        ],
      );
      await notifyIds(client, [row.id]);
    });
  }

  /**
   * Rows whose nonce the chain consumed with a transaction that is none of theirs go back to the
   * queue for a new nonce (none of their attempts can ever be mined).
   */
  async requeue(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.#database.pool.query(
      `UPDATE transactions SET nonce = NULL, state = 'queued', updated_at = now()
        WHERE id = ANY($1::text[]) AND state = ANY($2::text[])`,
      [ids, sourcesOf("queued")],
    );
  }

  /** Moves the wallet's next nonce (after a resync from the chain, or a rewind). */
  async setNextNonce(walletId: string, next: number): Promise<void> {
    await this.#database.pool.query(`UPDATE wallets SET next_nonce = $2 WHERE id = $1`, [
      walletId,
      next,
    ]);
  }

  /** The highest nonce a live row of the wallet holds, or -1. */
  async maxLiveNonce(walletId: string): Promise<number> {
    const result = await this.#database.pool.query<{ n: string | null }>(
      `SELECT max(nonce)::text AS n FROM transactions WHERE wallet_id = $1 AND nonce IS NOT NULL AND state IN ('queued', 'sent')`,
      [walletId],
    );
    const n = result.rows[0]?.n;
    return n === null || n === undefined ? -1 : Number(n);
  }

  /** Sets or clears the transient problem of live rows (shown by GET /api/v1/transactions/{id}). */
  async setLastError(ids: readonly string[], lastError: string | null): Promise<void> {
    if (ids.length === 0) return;
    await this.#database.pool.query(
      `UPDATE transactions SET last_error = $2, updated_at = now()
        WHERE id = ANY($1::text[]) AND state = ANY($3::text[]) AND last_error IS DISTINCT FROM $2`,
      [ids, lastError, [...LIVE_STATES]],
    );
  }

  /**
   * Ends batch parents whose children are all final: `confirmed` when any item was issued (or
   * there were none), else `failed`, with `result` from `summarise`. Returns the ids ended.
   */
  async finishParents(
    parentIds: readonly string[],
    summarise: (parent: TxRow, children: TxRow[]) => Record<string, unknown>,
  ): Promise<string[]> {
    const ended: string[] = [];
    for (const parentId of new Set(parentIds)) {
      const parent = await this.get(parentId);
      if (parent === undefined || !(LIVE_STATES as readonly TxState[]).includes(parent.state))
        continue;
      const children = await this.children(parentId);
      if (children.some((c) => (LIVE_STATES as readonly TxState[]).includes(c.state))) continue;
      const issued = children.filter((c) => c.state === "confirmed").length;
      const state: TxState = issued > 0 || children.length === 0 ? "confirmed" : "failed";
      await this.#inTransaction(async (client) => {
        const result = await client.query(
          `UPDATE transactions SET state = $2, result = $3, last_error = NULL, updated_at = now(),
                  confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END,
                  failed_at = CASE WHEN $2 = 'failed' THEN now() END
            WHERE id = $1 AND state = ANY($4::text[])`,
          [parentId, state, JSON.stringify(summarise(parent, children)), sourcesOf(state)],
        );
        if (result.rowCount === 1) {
          await notifyIds(client, [parentId]);
          ended.push(parentId);
        }
      });
    }
    return ended;
  }

  /** Deletes expired `Idempotency-Key` records. Returns how many went. */
  async purgeExpiredIdempotencyKeys(): Promise<number> {
    const result = await this.#database.pool.query(
      "DELETE FROM idempotency_keys WHERE expires_at <= now()",
    );
    return result.rowCount ?? 0;
  }

  /** Runs `work` in one database transaction on one pooled connection. */
  #inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.#database, work);
  }
}

async function notifyIds(
  client: { query: (text: string, values: unknown[]) => Promise<unknown> },
  ids: readonly string[],
): Promise<void> {
  for (let i = 0; i < ids.length; i += NOTIFY_CHUNK) {
    await client.query("SELECT pg_notify($1, $2)", [
      TX_CHANNELS.final,
      ids.slice(i, i + NOTIFY_CHUNK).join(","),
    ]);
  }
}
