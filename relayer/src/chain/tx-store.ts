import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type pg from "pg";
import { Batcher } from "../db/batcher.js";
import {
  eachAloneOnDataError,
  inTransaction,
  retryOnDeadlock,
  type Database,
  type DbTransaction,
} from "../db/client.js";
import { idempotencyKeys, transactions } from "../db/schema/index.js";
import { LeasedTxWrites } from "./leased-tx-writes.js";
import { LIVE_STATES, REORG_REOPENS, sourcesOf, type TxState } from "./tx-lifecycle.js";

export { LeasedTxWrites, LeaseLostError } from "./leased-tx-writes.js";
export type { Finalisation, SentEntry } from "./leased-tx-writes.js";

import type { TxRow } from "./tx-rows.js";

export type { TxRow } from "./tx-rows.js";
/** Fields to insert a new row. */
export type NewTxRow = typeof transactions.$inferInsert;

/** The fields a write is recorded with (`TxStore.record`); every other column starts at its default. */
const RECORDED_FIELDS = [
  "id",
  "orgId",
  "walletId",
  "parentId",
  "itemIndex",
  "kind",
  "mode",
  "requestHash",
  "fromAddress",
  "toAddress",
  "data",
  "value",
  "gasLimit",
  "feeCap",
  "context",
  "state",
  "error",
  "errorKind",
  "failedAt",
] as const satisfies ReadonlyArray<keyof NewTxRow>;
export type RecordedRow = Pick<NewTxRow, (typeof RECORDED_FIELDS)[number]>;

/**
 * `RecordedRow`s in one statement, `INSERT ... SELECT FROM unnest(...)` with one array parameter
 * per field (so its text is the same whatever the number of rows), and the NOTIFY of their
 * wallets, sent on commit. Column names and SQL types come from the Drizzle schema.
 */
const RECORD_SQL = (() => {
  const columns = RECORDED_FIELDS.map((field) => transactions[field]);
  const names = columns.map((column) => column.name).join(", ");
  const n = columns.length;
  return `WITH recorded AS (
     INSERT INTO transactions (${names})
     SELECT * FROM unnest(${columns.map((column, i) => `$${i + 1}::${column.getSQLType()}[]`).join(", ")})
     RETURNING 1)
   SELECT pg_notify($${n + 1}, wallet_id) FROM unnest($${n + 2}::text[]) AS wallet_id`;
})();

/**
 * The array parameters of `RECORD_SQL`, one per field: each value (or the schema's default of a
 * field a row leaves out) as the Drizzle column sends it to the driver.
 */
function recordParams(rows: readonly RecordedRow[]): unknown[][] {
  return RECORDED_FIELDS.map((field) => {
    const column = transactions[field];
    return rows.map((row) => {
      const value: unknown = row[field] ?? column.default;
      return value === undefined || value === null ? null : column.mapToDriverValue(value);
    });
  });
}

/** Channels of PostgreSQL notifications the store sends (see `tx-notifier.ts`). */
/**
 * SQL: the transactions row `t` (a table alias) is not held. A queued write of a suspended
 * organization is held: it waits, unsent and without a nonce, until operator staff resume the
 * org (`services/org-controls.ts`); its writes already sent are still followed to the end.
 */
export const notHeld = (t: string): string =>
  `(${t}.state <> 'queued' OR NOT EXISTS (
     SELECT 1 FROM orgs o WHERE o.id = ${t}.org_id AND o.suspended_at IS NOT NULL))`;

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
  signerBackend: string;
  nextNonce: number | null;
}

/** An `Idempotency-Key` claim made together with a write's rows. */
export interface IdempotencyClaim {
  orgId: string;
  key: string;
  requestHash: string;
  ttlMs: number;
}

/** An org's custodial wallet: what never changes of it. */
export interface OrgWalletRef {
  id: string;
  orgId: string;
  address: string;
}

/** What a new write of an org is checked against (`TxStore.writerState`). */
export interface WriterState {
  wallet: OrgWalletRef & { signerBackend: string };
  /** How many of the org's writes are live (the queue length used for 429). */
  liveRoots: number;
  /**
   * The wei its live writes reserved (value + gas limit × fee cap), and what writes mined after
   * the block the balance is known at reserved (`writerState`'s `balanceBlock`).
   */
  reservedWei: bigint;
}

/** Rows per statement when writes are recorded together (a bound on the statement's size). */
const RECORD_ROWS = 1_000;

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
  /** `getSoon`, `writerState`, `record` without a claim and `liveRowsOfWallet`: one statement per turn for all. */
  readonly #soon: Batcher<string, TxRow | undefined>;
  readonly #writers: Batcher<{ orgId: string; balanceBlock: number }, WriterState | undefined>;
  /** Each org's wallet id and address, as `writerState` read them (they never change). */
  readonly #wallets = new Map<string, OrgWalletRef>();
  readonly #records: Batcher<{ walletId: string; rows: readonly RecordedRow[] }, true>;
  readonly #liveRows: Batcher<string, TxRow[]>;

  constructor(database: Database) {
    this.#database = database;
    this.#soon = new Batcher(async (ids) => {
      const rows = await this.#database.db
        .select()
        .from(transactions)
        .where(inArray(transactions.id, [...new Set(ids)]));
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id));
    });
    this.#writers = new Batcher((orgIds) => this.#readWriterStates(orgIds));
    this.#records = new Batcher((writes) => this.#recordMany(writes));
    this.#liveRows = new Batcher((walletIds) => this.#readLiveRows(walletIds));
  }

  get database(): Database {
    return this.#database;
  }

  /** The engine's writes for the wallets `owner` leases, each checked against the lease. */
  leasedBy(owner: string): LeasedTxWrites {
    return new LeasedTxWrites(this.#database, owner);
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
    return this.#soon.add(id);
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
   * claim nor `alongside` that is one statement.
   *
   * @param alongside more of the same act, written in the same transaction after the rows (a
   *   management act's audit row): both are stored or neither
   * @returns false when another request holds the idempotency key (nothing was written)
   */
  async record(
    walletId: string,
    rows: readonly RecordedRow[],
    claim: IdempotencyClaim | undefined,
    alongside?: (tx: DbTransaction, rootId: string) => Promise<unknown>,
  ): Promise<boolean> {
    const rootId = rows[0]?.id;
    if (rootId === undefined) throw new Error("record: no rows");
    if (claim === undefined && alongside === undefined)
      return this.#records.add({ walletId, rows });
    return this.#database.db.transaction(async (tx) => {
      if (claim !== undefined) {
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
      }
      await tx.insert(transactions).values([...rows]);
      await alongside?.(tx, rootId);
      await tx.execute(sql`SELECT pg_notify(${TX_CHANNELS.queued}, ${walletId})`);
      return true;
    });
  }

  /**
   * What a new write of an org is checked against: its wallet, how many of its writes are live
   * (the queue length used for 429), and the wei its live writes reserved (value + gas limit ×
   * fee cap). The writes of one turn share one statement.
   *
   * `balanceBlock`: the block the wallet's balance is known to include (the head when it was
   * read). A write mined after it may already be settled (by another process's engine, or
   * before this one's head moved) while its cost is not yet in that balance: such writes still
   * count as reserved, so the funds check never counts their wei twice as available.
   */
  writerState(
    orgId: string,
    balanceBlock = Number.MAX_SAFE_INTEGER,
  ): Promise<WriterState | undefined> {
    return this.#writers.add({ orgId, balanceBlock });
  }

  /**
   * The org's wallet as an earlier `writerState` read it, if this process has read it: a wallet's
   * id and address never change, so a write can be prepared against them while its org's queue
   * and reservations are read (its signer backend comes from that fresh read).
   */
  knownWallet(orgId: string): OrgWalletRef | undefined {
    return this.#wallets.get(orgId);
  }

  async #readWriterStates(
    asks: ReadonlyArray<{ orgId: string; balanceBlock: number }>,
  ): Promise<Array<WriterState | undefined>> {
    const orgIds = asks.map((ask) => ask.orgId);
    // One statement for the turn: the lowest block asked for (an ask at a later block then also
    // counts writes its balance already paid: more reserved, never less).
    const after = Math.min(...asks.map((ask) => ask.balanceBlock));
    const result = await this.#database.pool.query<{
      id: string;
      org_id: string;
      address: string;
      signer_backend: string;
      live_roots: number;
      reserved: string;
    }>(
      // Writes mined after the block: a range of transactions_wallet_receipt_block_idx, a
      // block's rows of the wallet at most (none while the head is current).
      `SELECT w.id, w.org_id, w.address, w.signer_backend,
              (SELECT count(*) FROM transactions t
                WHERE t.org_id = w.org_id AND t.parent_id IS NULL AND t.state IN ('queued', 'sent', 'mined'))::int AS live_roots,
              (SELECT coalesce(sum(t.value::numeric + coalesce(t.gas_limit, '0')::numeric
                                   * coalesce(t.fee_cap, t.max_fee_per_gas, '0')::numeric), 0)
                 FROM transactions t
                WHERE t.wallet_id = w.id
                  AND (t.state IN ('queued', 'sent')
                       OR (t.receipt IS NOT NULL AND (t.receipt->>'blockNumber')::bigint > $2)))::text AS reserved
         FROM wallets w WHERE w.org_id = ANY($1::text[])`,
      [[...new Set(orgIds)], after],
    );
    const byOrg = new Map(
      result.rows.map((row) => [
        row.org_id,
        {
          wallet: {
            id: row.id,
            orgId: row.org_id,
            address: row.address,
            signerBackend: row.signer_backend,
          },
          liveRoots: row.live_roots,
          reservedWei: BigInt(row.reserved.split(".")[0] ?? "0"),
        },
      ]),
    );
    for (const [orgId, state] of byOrg) {
      const { id, address } = state.wallet;
      this.#wallets.set(orgId, { id, orgId, address });
    }
    return orgIds.map((orgId) => byOrg.get(orgId));
  }

  /**
   * The writes of one turn (no idempotency claim) in one statement, so one round trip and one
   * commit: their rows, and the wake-ups of their wallets sent when they commit. A statement
   * refused for its data is tried again write by write (`eachAloneOnDataError`), so one bad write
   * fails alone.
   */
  async #recordMany(
    writes: ReadonlyArray<{ walletId: string; rows: readonly RecordedRow[] }>,
  ): Promise<Array<true | Error>> {
    const insert = async (group: typeof writes) => {
      const params = [
        ...recordParams(group.flatMap((w) => [...w.rows])),
        TX_CHANNELS.queued,
        [...new Set(group.map((w) => w.walletId))],
      ];
      await retryOnDeadlock(() => this.#database.pool.query(RECORD_SQL, params));
    };
    const results: Array<true | Error> = [];
    // At most RECORD_ROWS rows per statement.
    for (let i = 0; i < writes.length; ) {
      const group = [writes[i]!];
      let size = writes[i]!.rows.length;
      for (i++; i < writes.length && size + writes[i]!.rows.length <= RECORD_ROWS; i++) {
        group.push(writes[i]!);
        size += writes[i]!.rows.length;
      }
      for (const answer of await eachAloneOnDataError(group, insert))
        results.push(answer instanceof Error ? answer : true);
    }
    return results;
  }

  /** Number of live root rows of an org (the queue length used for 429). */
  async liveRootCount(orgId: string): Promise<number> {
    const result = await this.#database.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM transactions WHERE org_id = $1 AND parent_id IS NULL AND state IN ('queued', 'sent', 'mined')`,
      [orgId],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  /** Wallets that have live rows not held (work for some sequencer). */
  async walletsWithWork(limit = 10_000): Promise<string[]> {
    const result = await this.#database.pool.query<{ wallet_id: string }>(
      `SELECT DISTINCT t.wallet_id FROM transactions t
        WHERE t.state IN ('queued', 'sent', 'mined') AND ${notHeld("t")} LIMIT $1`,
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
    // Locks several wallets at once, as a round's `markSent` does: a deadlock between them is
    // broken by PostgreSQL and the statement (atomic) runs again.
    const result = await retryOnDeadlock(() =>
      this.#database.pool.query<{
        id: string;
        org_id: string;
        address: string;
        encrypted_key: string;
        signer_backend: string;
        next_nonce: string | null;
      }>(
        `UPDATE wallets SET lease_owner = $1, lease_until = now() + ($3::int * interval '1 millisecond')
          WHERE id = ANY($2::text[]) AND (lease_owner IS NULL OR lease_owner = $1 OR lease_until < now())
          RETURNING id, org_id, address, encrypted_key, signer_backend, next_nonce::text`,
        [owner, walletIds, leaseMs],
      ),
    );
    return result.rows.map((r) => ({
      id: r.id,
      orgId: r.org_id,
      address: r.address,
      encryptedKey: r.encrypted_key,
      signerBackend: r.signer_backend,
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
    const result = await retryOnDeadlock(() =>
      this.#database.pool.query<{ id: string }>(
        `UPDATE wallets SET lease_until = now() + ($3::int * interval '1 millisecond')
          WHERE id = ANY($2::text[]) AND lease_owner = $1 RETURNING id`,
        [owner, walletIds, leaseMs],
      ),
    );
    return result.rows.map((r) => r.id);
  }

  /** Gives leases back (on stop, or when a wallet has no work left). */
  async releaseLeases(owner: string, walletIds?: readonly string[]): Promise<void> {
    await retryOnDeadlock(() =>
      this.#database.pool.query(
        walletIds === undefined
          ? `UPDATE wallets SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`
          : `UPDATE wallets SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND id = ANY($2::text[])`,
        walletIds === undefined ? [owner] : [owner, walletIds],
      ),
    );
  }

  /**
   * Every live row of a wallet (roots and batch children) but held ones, oldest first, batch
   * items in order.
   */
  liveRowsOfWallet(walletId: string): Promise<TxRow[]> {
    return this.#liveRows.add(walletId);
  }

  /** `liveRowsOfWallet` for the wallets stepped in one turn, in one statement. */
  async #readLiveRows(walletIds: readonly string[]): Promise<TxRow[][]> {
    const rows = await this.#database.db
      .select()
      .from(transactions)
      .where(
        and(
          inArray(transactions.walletId, [...new Set(walletIds)]),
          sql`${transactions.state} IN ('queued', 'sent', 'mined') AND ${sql.raw(notHeld('"transactions"'))}`,
        ),
      )
      .orderBy(asc(transactions.createdAt), asc(transactions.itemIndex), asc(transactions.id));
    const byWallet = new Map<string, TxRow[]>();
    for (const row of rows) {
      const list = byWallet.get(row.walletId);
      if (list === undefined) byWallet.set(row.walletId, [row]);
      else list.push(row);
    }
    return walletIds.map((id) => [...(byWallet.get(id) ?? [])]);
  }

  /** The highest nonce a live row of the wallet holds, or -1. */
  async maxLiveNonce(walletId: string): Promise<number> {
    const result = await this.#database.pool.query<{ n: string | null }>(
      `SELECT max(nonce)::text AS n FROM transactions WHERE wallet_id = $1 AND nonce IS NOT NULL AND state IN ('queued', 'sent', 'mined')`,
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
          await notifyFinal(client, [parentId]);
          ended.push(parentId);
        }
      });
    }
    return ended;
  }

  /**
   * Rows whose receipt a reorg took away (on the indexer's transaction): every row mined above
   * `ancestor` (a reorg the indexer found), and every row whose receipt names another hash for a
   * block of `canonical` (a reorg that happened before the indexer reached the block). Each goes
   * back to `sent`, its receipt dropped and the attempt that was mined marked `reorgedFrom`, so
   * its wallet's sequencer broadcasts those very bytes again (`reopened_at`). Group rows of such
   * rows are reopened too, and the wallets' sequencers are woken (`NOTIFY`).
   *
   * @returns the rows reopened, with the block each had been mined in
   */
  static async reopenReorged(
    client: pg.ClientBase,
    dropped: {
      ancestor?: number;
      canonical?: ReadonlyArray<{ number: number; hash: string }>;
    },
  ): Promise<Array<{ id: string; walletId: string; blockNumber: number }>> {
    const canonical = dropped.canonical ?? [];
    if (dropped.ancestor === undefined && canonical.length === 0) return [];
    const { rows } = await client.query<{ id: string; wallet_id: string; block: string }>(
      `WITH victims AS (
         SELECT id, (receipt->>'blockNumber')::bigint AS block FROM transactions t
          WHERE receipt IS NOT NULL AND nonce IS NOT NULL AND state = ANY($2::text[])
            AND (((receipt->>'blockNumber')::bigint > $1)
                 OR ((receipt->>'blockNumber')::bigint = ANY($3::bigint[])
                     AND lower(receipt->>'blockHash') <> (SELECT lower(c.h) FROM unnest($3::bigint[], $4::text[]) c(n, h)
                                                           WHERE c.n = (t.receipt->>'blockNumber')::bigint LIMIT 1)))
          FOR UPDATE),
       reopened AS (
         UPDATE transactions t
            SET state = 'sent', receipt = NULL, result = NULL, error = NULL, error_kind = NULL,
                confirmed_at = NULL, failed_at = NULL, mined_at = NULL, reopened_at = now(),
                updated_at = now(),
                attempts = (SELECT jsonb_agg(CASE WHEN a->>'hash' = t.receipt->>'hash'
                                                  THEN a || jsonb_build_object('reorgedFrom', v.block)
                                                  ELSE a END ORDER BY ord)
                              FROM jsonb_array_elements(t.attempts) WITH ORDINALITY AS x(a, ord))
           FROM victims v
          WHERE t.id = v.id
          RETURNING t.id, t.wallet_id, t.parent_id, v.block::text AS block),
       parents AS (
         UPDATE transactions p SET state = 'sent', result = NULL, confirmed_at = NULL,
                failed_at = NULL, updated_at = now()
          WHERE p.id IN (SELECT parent_id FROM reopened WHERE parent_id IS NOT NULL)
            AND p.state IN ('confirmed', 'failed'))
       SELECT id, wallet_id, block FROM reopened`,
      [
        dropped.ancestor ?? null,
        [...REORG_REOPENS],
        canonical.map((c) => c.number),
        canonical.map((c) => c.hash),
      ],
    );
    for (const walletId of new Set(rows.map((r) => r.wallet_id)))
      await client.query("SELECT pg_notify($1, $2)", [TX_CHANNELS.queued, walletId]);
    return rows.map((r) => ({ id: r.id, walletId: r.wallet_id, blockNumber: Number(r.block) }));
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

/**
 * One statement that runs `update` (an `UPDATE transactions t ... RETURNING t.id, t.state`) and
 * tells every process's waiting requests of the rows it made final (not `mined`): a `NOTIFY` per
 * ${NOTIFY_CHUNK} ids, sent on commit, as `notifyFinal` does, without a transaction held open
 * across round trips. `$<channel>` is the parameter that carries `TX_CHANNELS.final`.
 */
export function updateNotifyingFinal(update: string, channel: number): string {
  return `WITH changed AS (${update}),
     notified AS (
       SELECT pg_notify($${channel}, string_agg(id, ',')) FROM (
         SELECT id, (row_number() OVER () - 1) / ${NOTIFY_CHUNK} AS chunk
           FROM changed WHERE state <> 'mined') final
        GROUP BY chunk)
   SELECT changed.id, changed.state FROM changed, (SELECT count(*) FROM notified) AS sent`;
}

/** Tells every process's waiting requests that `ids` became final (`NOTIFY`, on commit). */
export async function notifyFinal(
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
