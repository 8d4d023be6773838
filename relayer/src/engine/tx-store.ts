import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type pg from "pg";
import { Batcher } from "../db/batcher.js";
import {
  eachAloneOnDataError,
  inTransaction,
  retryOnDeadlock,
  withParams,
  type Database,
  type DbTransaction,
} from "../db/client.js";
import { idempotencyKeys, transactions } from "../db/schema/index.js";
import {
  CHECKED_RECORD_SQL,
  checkedRecordParams,
  verdictOf,
  type CheckedWrite,
  type OrgWalletRef,
  type RecordVerdict,
  type VerdictRow,
} from "./checked-record.js";
import { LeasedTxWrites } from "./leased-tx-writes.js";
import { announceFinal, TX_CHANNELS, updateNotifyingFinal } from "./tx-channels.js";
import { OUTCOME_COLUMNS } from "./outcome-events.js";
import { LIVE_STATES, REORG_REOPENS, sourcesOf, type TxState } from "./tx-lifecycle.js";

export { LeasedTxWrites, LeaseLostError } from "./leased-tx-writes.js";
export type { Finalisation, SentEntry } from "./leased-tx-writes.js";

import type { TxRow } from "./tx-rows.js";

export type { TxRow } from "./tx-rows.js";
export type { NewTxRow, OrgWalletRef, RecordedRow } from "./checked-record.js";
export type { CheckedWrite, RecordVerdict } from "./checked-record.js";

/**
 * SQL: the transactions row `t` (a table alias) is not held. A queued write of a suspended
 * organization is held: it waits, unsent and without a nonce, until operator staff resume the
 * org (`orgs/controls.ts`); its writes already sent are still followed to the end.
 */
export const notHeld = (t: string): string =>
  `(${t}.state <> 'queued' OR NOT EXISTS (
     SELECT 1 FROM orgs o WHERE o.id = ${t}.org_id AND o.suspended_at IS NOT NULL))`;

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

/** Rows per statement when writes are recorded together (a bound on the statement's size). */
const RECORD_ROWS = 1_000;

/**
 * Data access for `transactions`: the only place that writes the table. Every change of state is
 * checked against the lifecycle (`tx-lifecycle.ts`): updates only touch rows whose current state
 * may move to the new one, so an illegal transition changes nothing and is reported. Hot paths
 * are plain parameterised SQL, one statement per round for many rows.
 */
export class TxStore {
  readonly #database: Database;
  /** `getSoon`, `walletOf`, `record` without a claim and `liveRowsOfWallet`: one statement per turn for all. */
  readonly #soon: Batcher<string, TxRow | undefined>;
  readonly #walletReads: Batcher<string, OrgWalletRef | undefined>;
  /** Each org's wallet as `walletOf` read it (a wallet never changes). */
  readonly #wallets = new Map<string, OrgWalletRef>();
  readonly #records: Batcher<CheckedWrite, RecordVerdict>;
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
    this.#walletReads = new Batcher((orgIds) => this.#readWallets(orgIds));
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
   * Records a write if its org's checks pass as the statement runs (`CheckedWrite`): its rows,
   * its `Idempotency-Key` claim and `alongside` in one database transaction. It wakes no engine
   * (the caller does once it returns: `Engine.submit`). Without a claim nor
   * `alongside`, the writes of one turn share one statement (one round trip, one commit for the
   * check and the rows). Nothing is written for a write refused.
   *
   * @param alongside more of the same act, written in the same transaction after the rows (a
   *   management act's audit row): both are stored or neither
   */
  async record(
    write: CheckedWrite,
    claim: IdempotencyClaim | undefined,
    alongside?: (tx: DbTransaction, rootId: string) => Promise<unknown>,
  ): Promise<RecordVerdict> {
    const rootId = write.rows[0]?.id;
    if (rootId === undefined) throw new Error("record: no rows");
    if (claim === undefined && alongside === undefined) return this.#records.add(write);
    const refused = new Error("refused");
    let verdict: RecordVerdict = { outcome: "key-taken" };
    try {
      await this.#database.db.transaction(async (tx) => {
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
          if (claimed.length === 0) return;
        }
        const params = checkedRecordParams([{ i: 0, write }]);
        const result = await tx.execute<VerdictRow & Record<string, unknown>>(
          withParams(CHECKED_RECORD_SQL, params),
        );
        verdict = verdictOf(result.rows[0]);
        // A refusal undoes the claim with the rest.
        if (verdict.outcome !== "recorded") throw refused;
        await alongside?.(tx, rootId);
      });
    } catch (error) {
      if (error !== refused) throw error;
    }
    return verdict;
  }

  /**
   * The org's wallet: read once per process (a wallet never changes), the orgs asked for in one
   * turn in one statement.
   */
  async walletOf(orgId: string): Promise<OrgWalletRef | undefined> {
    return this.#wallets.get(orgId) ?? this.#walletReads.add(orgId);
  }

  async #readWallets(orgIds: readonly string[]): Promise<Array<OrgWalletRef | undefined>> {
    const result = await this.#database.pool.query<{
      id: string;
      org_id: string;
      address: string;
      signer_backend: string;
    }>(`SELECT id, org_id, address, signer_backend FROM wallets WHERE org_id = ANY($1::text[])`, [
      [...new Set(orgIds)],
    ]);
    for (const row of result.rows)
      this.#wallets.set(row.org_id, {
        id: row.id,
        orgId: row.org_id,
        address: row.address,
        signerBackend: row.signer_backend,
      });
    return orgIds.map((orgId) => this.#wallets.get(orgId));
  }

  /**
   * The writes of one turn (no idempotency claim) checked and recorded in one statement, so one
   * round trip and one commit. A statement refused for its data is tried again write by write
   * (`eachAloneOnDataError`), so one bad write fails alone.
   */
  async #recordMany(writes: readonly CheckedWrite[]): Promise<Array<RecordVerdict | Error>> {
    const check = async (group: ReadonlyArray<{ i: number; write: CheckedWrite }>) => {
      const params = checkedRecordParams(group);
      const result = await retryOnDeadlock(() =>
        // Named: each connection plans it once, not on every write.
        this.#database.pool.query<VerdictRow>({
          name: "rwa-checked-record",
          text: CHECKED_RECORD_SQL,
          values: params,
        }),
      );
      return new Map(result.rows.map((row) => [row.i, row]));
    };
    const indexed = writes.map((write, i) => ({ i, write }));
    const results: Array<RecordVerdict | Error> = [];
    // At most RECORD_ROWS rows per statement.
    for (let at = 0; at < indexed.length; ) {
      const group = [indexed[at]!];
      let size = indexed[at]!.write.rows.length;
      for (
        at++;
        at < indexed.length && size + indexed[at]!.write.rows.length <= RECORD_ROWS;
        at++
      ) {
        group.push(indexed[at]!);
        size += indexed[at]!.write.rows.length;
      }
      const answers = await eachAloneOnDataError(group, check);
      group.forEach(({ i }, k) => {
        const answer = answers[k]!;
        results.push(answer instanceof Error ? answer : verdictOf(answer.get(i)));
      });
    }
    return results;
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

  /** Gives every lease of `owner` back (on stop; idle wallets: `releaseIdleLeases`). */
  async releaseLeases(owner: string): Promise<void> {
    await retryOnDeadlock(() =>
      this.#database.pool.query(
        `UPDATE wallets SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1`,
        [owner],
      ),
    );
  }

  /**
   * Gives back the leases of `walletIds` that `owner` holds and that have no live row to work on
   * (none, or only held ones) as the statement runs; returns the ids given back. A wallet whose
   * new write committed before it keeps its lease, so its holder does not lose it under a step.
   */
  async releaseIdleLeases(owner: string, walletIds: readonly string[]): Promise<string[]> {
    if (walletIds.length === 0) return [];
    const result = await retryOnDeadlock(() =>
      this.#database.pool.query<{ id: string }>(
        `UPDATE wallets w SET lease_owner = NULL, lease_until = NULL
          WHERE w.lease_owner = $1 AND w.id = ANY($2::text[])
            AND NOT EXISTS (SELECT 1 FROM transactions t
                             WHERE t.wallet_id = w.id AND t.state IN ('queued', 'sent', 'mined')
                               AND ${notHeld("t")})
          RETURNING w.id`,
        [owner, walletIds],
      ),
    );
    return result.rows.map((r) => r.id);
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
      // Every item cancelled (a sent batch's cancel won every race): the batch is cancelled.
      const cancelled = children.length > 0 && children.every((c) => c.state === "cancelled");
      const state: TxState =
        issued > 0 || children.length === 0 ? "confirmed" : cancelled ? "cancelled" : "failed";
      await this.#inTransaction(async (client) => {
        const result = await client.query(
          `UPDATE transactions SET state = $2, result = $3, last_error = NULL, updated_at = now(),
                  confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END,
                  failed_at = CASE WHEN $2 = 'failed' THEN now() END,
                  cancelled_at = CASE WHEN $2 = 'cancelled' THEN now() END
            WHERE id = $1 AND state = ANY($4::text[])`,
          [parentId, state, JSON.stringify(summarise(parent, children)), sourcesOf(state)],
        );
        if (result.rowCount === 1) {
          await announceFinal(client, [parentId]);
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
                confirmed_at = NULL, failed_at = NULL, cancelled_at = NULL, expired_at = NULL,
                mined_at = NULL,
                reopened_at = now(), updated_at = now(),
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

  /**
   * Cancels a write of `orgId` that nothing was sent of (`POST /api/v1/transactions/{id}/cancel`):
   * the row, and a batch's items with it, end `cancelled` in one statement, which also tells
   * waiting requests and writes the `transaction.cancelled` event (`updateNotifyingFinal`). A
   * write is unsent while it is `queued` without a nonce (a batch: its group is still `queued`;
   * its items that failed their estimate stay `failed`). Nothing on the chain; the funds check
   * no longer counts it (only `queued` and `sent` rows reserve).
   *
   * Never a row the engine is sending: the write is locked first (a batch by its group), and the
   * sender's `markSent` records nothing for a round holding a row cancelled (or expired) meanwhile,
   * checked in the same statement (`LeasedTxWrites.markSent`: a round that lost a row records nothing,
   * broadcasts nothing and runs again). Whichever commits first wins; the other changes nothing.
   *
   * @returns undefined when the org has no such write; else its state after the statement and
   *   whether this call cancelled it
   */
  async cancelUnsent(
    orgId: string,
    id: string,
  ): Promise<{ state: TxState; cancelled: boolean; walletId: string } | undefined> {
    const cancelled = await retryOnDeadlock(() =>
      this.#database.pool.query<{ id: string }>(
        updateNotifyingFinal(
          `WITH root AS (SELECT id, state FROM transactions
                          WHERE id = $1 AND org_id = $2 AND parent_id IS NULL FOR UPDATE)
           UPDATE transactions t
              SET state = 'cancelled', cancelled_at = now(), last_error = NULL, updated_at = now()
            WHERE (t.id = $1 OR t.parent_id = $1) AND t.org_id = $2
              AND t.state = ANY($3::text[]) AND t.nonce IS NULL
              AND (SELECT state FROM root) = 'queued'
            RETURNING ${OUTCOME_COLUMNS}`,
          4,
        ),
        // Only a write nothing was sent of (`sent` and `mined` rows are cancelled by the chain).
        [id, orgId, ["queued"], TX_CHANNELS.final],
      ),
    );
    const [row] = (
      await this.#database.pool.query<{ state: TxState; wallet_id: string }>(
        `SELECT state, wallet_id FROM transactions WHERE id = $1 AND org_id = $2 AND parent_id IS NULL`,
        [id, orgId],
      )
    ).rows;
    if (row === undefined) return undefined;
    return {
      state: row.state,
      cancelled: cancelled.rows.some((r) => r.id === id),
      walletId: row.wallet_id,
    };
  }

  /**
   * Asks the engine to cancel a write of `orgId` that was sent (a single write, not a batch):
   * its wallet's sequencer races it with a zero-value self-transfer on its nonce
   * (`engine/repricer.ts` `sendCancels`); the chain decides which is mined.
   *
   * @returns the write's wallet when it is `sent` (asked now or before), else undefined
   */
  async requestCancel(orgId: string, id: string): Promise<{ walletId: string } | undefined> {
    const { rows } = await this.#database.pool.query<{ wallet_id: string }>(
      `UPDATE transactions t
          SET cancel_requested_at = coalesce(t.cancel_requested_at, now()), updated_at = now()
        WHERE t.id = $1 AND t.org_id = $2 AND t.parent_id IS NULL AND t.state = 'sent'
          AND t.nonce IS NOT NULL
        RETURNING t.wallet_id`,
      [id, orgId],
    );
    const row = rows[0];
    return row === undefined ? undefined : { walletId: row.wallet_id };
  }

  /**
   * Cancels what is left of a batch of `orgId` already partly sent (its group `sent`), in one
   * database transaction that locks the group first: its items not sent yet end `cancelled` at
   * once (as `cancelUnsent` ends a write; the sender's `markSent` records nothing for a round
   * holding one), and its `sent` items get `cancel_requested_at`, so the wallet's sequencer races
   * each with a self-transfer on its nonce (`repricer.ts` `sendCancels`). Mined and final items
   * are left to the chain.
   *
   * @returns undefined when the org has no such batch or it is not `sent`; else every item (in
   *   item order) with its state after the statement, whether its cancel is asked, and the wallet
   */
  async cancelSentBatch(
    orgId: string,
    groupId: string,
  ): Promise<
    | {
        walletId: string;
        items: Array<{ index: number; state: TxState; cancelAsked: boolean }>;
      }
    | undefined
  > {
    return retryOnDeadlock(() =>
      this.#inTransaction(async (client) => {
        const group = await client.query<{ wallet_id: string }>(
          `SELECT wallet_id FROM transactions
            WHERE id = $1 AND org_id = $2 AND parent_id IS NULL AND state = 'sent' FOR UPDATE`,
          [groupId, orgId],
        );
        const walletId = group.rows[0]?.wallet_id;
        if (walletId === undefined) return undefined;
        await client.query(
          updateNotifyingFinal(
            `UPDATE transactions t
                SET state = 'cancelled', cancelled_at = now(), last_error = NULL, updated_at = now()
              WHERE t.parent_id = $1 AND t.org_id = $2 AND t.state = ANY($3::text[])
                AND t.nonce IS NULL
              RETURNING ${OUTCOME_COLUMNS}`,
            4,
          ),
          [groupId, orgId, ["queued"], TX_CHANNELS.final],
        );
        await client.query(
          `UPDATE transactions t
              SET cancel_requested_at = coalesce(t.cancel_requested_at, now()), updated_at = now()
            WHERE t.parent_id = $1 AND t.org_id = $2 AND t.state = 'sent' AND t.nonce IS NOT NULL`,
          [groupId, orgId],
        );
        const items = await client.query<{
          item_index: number | null;
          state: TxState;
          cancel_requested_at: Date | null;
        }>(
          `SELECT item_index, state, cancel_requested_at FROM transactions
            WHERE parent_id = $1 ORDER BY item_index`,
          [groupId],
        );
        return {
          walletId,
          items: items.rows.map((r) => ({
            index: r.item_index ?? 0,
            state: r.state,
            cancelAsked: r.state === "sent" && r.cancel_requested_at !== null,
          })),
        };
      }),
    );
  }

  /**
   * Raises the fee cap of a single sent write of `orgId` from `oldCap` to `newCap` (wei per gas;
   * `POST /api/v1/transactions/{id}/speed-up`), if the wallet covers the difference for the
   * write's gas limit beside what its live writes reserve, checked in the same statement as the
   * funds check of a new write is (`checked-record.ts`). Clears its stuck mark and stamps
   * `speed_up_at`, so its wallet's sequencer re-prices it at once (`repricer.ts` `sendSpeedUps`).
   *
   * @returns `raised` (and the wallet to wake), `short` (need and reserved wei), or `changed` when
   *   the write is no longer sent at `oldCap`
   */
  async raiseFeeCap(
    orgId: string,
    id: string,
    oldCap: bigint,
    newCap: bigint,
    balance: { value: bigint; block: number | undefined },
  ): Promise<
    | { outcome: "raised"; walletId: string }
    | { outcome: "short"; needWei: bigint; reservedWei: bigint }
    | { outcome: "changed" }
  > {
    const { rows } = await this.#database.pool.query<{
      found: number;
      raised: number;
      reserved: string | null;
      need: string | null;
      wallet_id: string | null;
    }>(
      `WITH target AS (
         SELECT t.id, t.wallet_id, t.gas_limit FROM transactions t
          WHERE t.id = $1 AND t.org_id = $2 AND t.parent_id IS NULL AND t.state = 'sent'
            AND t.fee_cap = $3 FOR UPDATE),
       reserved AS (
         SELECT coalesce(sum(t.value::numeric + coalesce(t.gas_limit, '0')::numeric
                             * coalesce(t.fee_cap, t.max_fee_per_gas, '0')::numeric), 0) AS wei
           FROM transactions t JOIN target g ON t.wallet_id = g.wallet_id
          WHERE t.state IN ('queued', 'sent')
             OR (t.receipt IS NOT NULL AND (t.receipt->>'blockNumber')::bigint > $6)),
       need AS (SELECT coalesce(g.gas_limit, '21000')::numeric * ($4::numeric - $3::numeric) AS wei
                  FROM target g),
       raised AS (
         UPDATE transactions t
            SET fee_cap = $4, stuck_since = NULL, stuck_reason = NULL, speed_up_at = now(),
                updated_at = now()
           FROM target g, reserved r, need n
          WHERE t.id = g.id AND n.wei <= greatest($5::numeric - r.wei, 0)
          RETURNING t.id)
       SELECT (SELECT count(*) FROM target)::int AS found, (SELECT count(*) FROM raised)::int AS raised,
              (SELECT wei::text FROM reserved) AS reserved, (SELECT wei::text FROM need) AS need,
              (SELECT wallet_id FROM target) AS wallet_id`,
      [
        id,
        orgId,
        oldCap.toString(),
        newCap.toString(),
        balance.value.toString(),
        balance.block ?? Number.MAX_SAFE_INTEGER,
      ],
    );
    const row = rows[0];
    if (row === undefined || row.found === 0 || row.wallet_id === null)
      return { outcome: "changed" };
    if (row.raised === 1) return { outcome: "raised", walletId: row.wallet_id };
    const wei = (text: string | null) => BigInt((text ?? "0").split(".")[0] ?? "0");
    return { outcome: "short", needWei: wei(row.need), reservedWei: wei(row.reserved) };
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
