import { BaseError } from "../errors.js";
import { Batcher } from "../db/batcher.js";
import {
  eachAloneOnDataError,
  inTransaction,
  retryOnDeadlock,
  type Database,
} from "../db/client.js";
import {
  IllegalTransitionError,
  sourcesOf,
  type TxAttempt,
  type TxErrorKind,
  type TxReceiptSummary,
} from "./tx-lifecycle.js";
import { announceFinal, TX_CHANNELS, updateNotifyingFinal } from "./tx-channels.js";
import { OUTCOME_COLUMNS, stuckEventSql } from "./outcome-events.js";
import type { TxRow } from "./tx-rows.js";
import type { StuckReason } from "../domain/transaction.js";

/** One row's first broadcast: its nonce and first attempt, written together. */
export interface SentEntry {
  id: string;
  nonce: number;
  attempt: TxAttempt;
}

/**
 * How a sent row ended, or that it was seen in a block (`mined`: its receipt, and the result or
 * the failure it will end with once it has its confirmations).
 */
export type Finalisation =
  | { id: string; status: "confirmed"; receipt: TxReceiptSummary; result: Record<string, unknown> }
  | {
      id: string;
      status: "failed";
      reason: string;
      errorKind: TxErrorKind;
      receipt: TxReceiptSummary | null;
    }
  | {
      id: string;
      status: "mined";
      receipt: TxReceiptSummary;
      result: Record<string, unknown> | null;
      reason: string | null;
    }
  /**
   * Its nonce went to the self-transfer sent to cancel it (a `cancel` attempt was mined):
   * `expired` when that was sent because its deadline passed (`deadline`).
   */
  | { id: string; status: "cancelled" | "expired"; receipt: TxReceiptSummary };

/** One wallet's round for `markSent`, and what its statement found. */
interface SentRound {
  walletId: string;
  nextNonce: number;
  entries: readonly SentEntry[];
}
interface RoundAnswer {
  moved: number;
  held: boolean;
  owned: boolean;
  /** No row of the round was cancelled or expired meanwhile, nor is past its deadline. */
  ready: boolean;
}

/**
 * How long the first round waits for other wallets' rounds to share its statement: wallets woken
 * together (a block, a burst of writes) reach it a few turns apart. Small against a block time.
 */
const MARK_SENT_LINGER_MS = 5;

/** This process no longer holds the wallet's lease: another process sequences it now. */
export class LeaseLostError extends BaseError {
  override name = "LeaseLostError";
}

/**
 * The wallet's organization was suspended since the round began: nothing was written and its
 * queued writes are held. The lease is still this process's: the sequencer looks at the wallet
 * again (its held rows are not loaded) and lets it go when nothing else is live.
 */
export class WritesHeldError extends BaseError {
  override name = "WritesHeldError";
}

/**
 * A row of the round was cancelled or expired since the round loaded it (`TxStore.cancelUnsent`,
 * `expireUnsent`), or its deadline passed: nothing was written, nothing is broadcast, the
 * wallet's next nonce did not move, and the sequencer runs the wallet's step again on its rows
 * as they are now.
 */
export class RoundRowsChangedError extends BaseError {
  override name = "RoundRowsChangedError";
}

/**
 * SQL: records the `(hash, id)` rows of `source` (a CTE or a row list) in `transaction_hashes`,
 * the look-up from a broadcast hash to its write (`metadata/bind-metadata.ts`).
 */
const recordHashes = (source: string) =>
  `INSERT INTO transaction_hashes (hash, transaction_id) SELECT hash, id FROM ${source}
   ON CONFLICT (hash) DO NOTHING`;

/** SQL: the mined attempt of row `t` (its receipt's hash) is a cancelling self-transfer. */
const MINED_BY_CANCEL = `EXISTS (SELECT 1 FROM jsonb_array_elements(t.attempts) a
                                 WHERE a->>'hash' = t.receipt->>'hash' AND a ? 'cancel')`;

/** SQL: row `t`'s mined attempt is the self-transfer sent because its deadline passed. */
const MINED_BY_DEADLINE = `EXISTS (SELECT 1 FROM jsonb_array_elements(t.attempts) a
                                   WHERE a->>'hash' = t.receipt->>'hash' AND a ? 'deadline')`;

/** `t` is a transaction row held by `$owner` (a parameter number) through its wallet's lease. */
const held = (owner: number) =>
  `EXISTS (SELECT 1 FROM wallets w WHERE w.id = t.wallet_id AND w.lease_owner = $${owner})`;

/**
 * The engine's writes to a wallet's transaction rows, each one checked against the wallet's
 * lease in the same statement: a process that lost a lease (paused, partitioned, slow) changes
 * nothing of that wallet, so two processes can never both decide about one nonce
 * (docs/transactions.md). Built by `TxStore.leasedBy(owner)`.
 */
export class LeasedTxWrites {
  readonly #database: Database;
  readonly owner: string;
  readonly #rounds = new Batcher<SentRound, RoundAnswer>((rounds) => this.#markSentMany(rounds), {
    lingerMs: MARK_SENT_LINGER_MS,
  });

  constructor(database: Database, owner: string) {
    this.#database = database;
    this.owner = owner;
  }

  /** Stores a gas limit estimated for a queued row recorded without one. */
  async setGasLimit(id: string, gasLimit: bigint): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions t SET gas_limit = $2, updated_at = now()
        WHERE t.id = $1 AND t.state = 'queued' AND ${held(3)}`,
      [id, gasLimit.toString(), this.owner],
    );
  }

  /**
   * One round's first broadcasts, written before anything is sent: each row gets its nonce and
   * its attempt (appended: attempts of an earlier nonce another transaction took are kept) and
   * moves to `sent`; group rows of those rows move to `sent`; the wallet's next nonce advances.
   * The rounds of every wallet that reach this within `MARK_SENT_LINGER_MS` share one statement
   * (one round trip, one commit), each checked against its own wallet's lease.
   *
   * @throws LeaseLostError when this process no longer holds the wallet
   * @throws WritesHeldError when its organization was suspended since the round began (nothing
   *   was written: its writes are held)
   * @throws RoundRowsChangedError when a row of the round was cancelled since the round loaded
   *   it (nothing was written: the round's nonces are not used)
   */
  async markSent(
    walletId: string,
    nextNonce: number,
    entries: readonly SentEntry[],
  ): Promise<void> {
    if (entries.length === 0) return;
    const answer = await this.#rounds.add({ walletId, nextNonce, entries });
    if (!answer.owned) throw new LeaseLostError(`wallet ${walletId}: lease lost`);
    if (!answer.held)
      throw new WritesHeldError(`wallet ${walletId}: its organization is suspended`);
    if (!answer.ready)
      throw new RoundRowsChangedError(
        `wallet ${walletId}: a row of the round was cancelled or expired`,
      );
    if (answer.moved !== entries.length)
      throw new IllegalTransitionError(
        `markSent: ${entries.length - answer.moved} of ${entries.length} rows were not queued without a nonce`,
      );
  }

  /**
   * The rounds of `markSent`, one statement for all (a wallet at most once per statement: its
   * loop runs one round at a time); a statement refused for its data is tried again round by
   * round (`eachAloneOnDataError`), so one bad round fails alone.
   */
  async #markSentMany(rounds: readonly SentRound[]): Promise<Array<RoundAnswer | Error>> {
    const groups: SentRound[][] = [];
    for (const round of rounds) {
      const group = groups.find((g) => !g.some((r) => r.walletId === round.walletId));
      if (group === undefined) groups.push([round]);
      else group.push(round);
    }
    const answers = new Map<SentRound, RoundAnswer | Error>();
    for (const group of groups) {
      const byGroup = await eachAloneOnDataError(group, (items) => this.#markSentStatement(items));
      group.forEach((round, i) => {
        const answer = byGroup[i]!;
        answers.set(round, answer instanceof Error ? answer : answer.get(round.walletId)!);
      });
    }
    return rounds.map((round) => answers.get(round)!);
  }

  async #markSentStatement(rounds: readonly SentRound[]): Promise<Map<string, RoundAnswer>> {
    const items = rounds.flatMap((r) => r.entries.map((e) => ({ walletId: r.walletId, ...e })));
    // The wallets are locked in id order, `FOR NO KEY UPDATE`: enough to keep a lease from moving
    // under the statement, and no conflict with the key-share locks of writes being recorded.
    // The round's rows are locked too (`ready`): a wallet whose round lost a row to a cancel
    // (`TxStore.cancelUnsent`) or an expiry, or holds a row whose deadline has just passed,
    // records nothing, so no nonce is handed out past a row never sent, and nothing is sent
    // after its deadline. (Any other row not queued is refused as before: IllegalTransitionError.)
    const query = () =>
      this.#database.pool.query<{
        wallet_id: string;
        n: number;
        held: boolean;
        owned: boolean;
        ready: boolean;
      }>(
        `WITH owned AS (SELECT id, org_id FROM wallets WHERE id = ANY($1::text[]) AND lease_owner = $2
                       ORDER BY id FOR NO KEY UPDATE),
       locked AS (SELECT t.id, t.state, t.nonce, t.valid_until FROM transactions t
                   WHERE t.id = ANY($5::text[]) ORDER BY t.id FOR NO KEY UPDATE),
       changed AS (SELECT DISTINCT e.wallet_id FROM unnest($4::text[], $5::text[]) AS e(wallet_id, id)
                     JOIN locked l ON l.id = e.id
                    WHERE l.state IN ('cancelled', 'expired')
                       OR (l.state = 'queued' AND l.nonce IS NULL AND l.valid_until <= now())),
       unheld AS (SELECT id FROM owned
                   WHERE NOT EXISTS (SELECT 1 FROM orgs o WHERE o.id = owned.org_id AND o.suspended_at IS NOT NULL)),
       lease AS (SELECT id FROM unheld WHERE id NOT IN (SELECT wallet_id FROM changed)),
       moved AS (
         UPDATE transactions t
            SET nonce = e.nonce, state = 'sent', attempts = t.attempts || jsonb_build_array(e.attempt),
                max_fee_per_gas = e.attempt->>'maxFeePerGas',
                max_priority_fee_per_gas = e.attempt->>'maxPriorityFeePerGas',
                sent_at = coalesce(t.sent_at, now()), last_error = NULL, updated_at = now()
           FROM unnest($4::text[], $5::text[], $6::bigint[], $7::jsonb[]) AS e(wallet_id, id, nonce, attempt)
          WHERE t.id = e.id AND t.wallet_id = e.wallet_id AND t.state = 'queued' AND t.nonce IS NULL
            AND e.wallet_id IN (SELECT id FROM lease)
          RETURNING t.id, t.wallet_id, t.parent_id, e.attempt->>'hash' AS hash),
       hashes AS (${recordHashes("moved")}),
       parents AS (
         UPDATE transactions p SET state = 'sent', sent_at = coalesce(p.sent_at, now()), updated_at = now()
          WHERE p.id IN (SELECT parent_id FROM moved WHERE parent_id IS NOT NULL) AND p.state = 'queued'),
       wallet AS (
         UPDATE wallets w SET next_nonce = n.next
           FROM unnest($1::text[], $3::bigint[]) AS n(id, next)
          WHERE w.id = n.id AND w.id IN (SELECT id FROM lease))
       SELECT n.id AS wallet_id,
              (SELECT count(*) FROM moved m WHERE m.wallet_id = n.id)::int AS n,
              EXISTS (SELECT 1 FROM unheld u WHERE u.id = n.id) AS held,
              EXISTS (SELECT 1 FROM owned o WHERE o.id = n.id) AS owned,
              NOT EXISTS (SELECT 1 FROM changed c WHERE c.wallet_id = n.id) AS ready
         FROM unnest($1::text[]) AS n(id)`,
        [
          rounds.map((r) => r.walletId),
          this.owner,
          rounds.map((r) => r.nextNonce),
          items.map((i) => i.walletId),
          items.map((i) => i.id),
          items.map((i) => i.nonce),
          items.map((i) => JSON.stringify(i.attempt)),
        ],
      );
    const result = await retryOnDeadlock(query);
    return new Map(
      result.rows.map((row) => [
        row.wallet_id,
        { moved: row.n, held: row.held, owned: row.owned, ready: row.ready },
      ]),
    );
  }

  /**
   * Appends attempts (re-pricing, or a cancelling self-transfer: same nonce, higher fees) to sent
   * rows. One statement.
   *
   * @returns the ids of the rows that took their attempt (a row settled meanwhile, or a wallet
   *   whose lease was lost, did not)
   */
  async addAttempts(entries: ReadonlyArray<{ id: string; attempt: TxAttempt }>): Promise<string[]> {
    if (entries.length === 0) return [];
    // A row settled by the block follower meanwhile is simply not changed.
    const result = await this.#database.pool.query<{ id: string }>(
      `WITH added AS (
         UPDATE transactions t
            SET attempts = t.attempts || jsonb_build_array(e.attempt),
                max_fee_per_gas = e.attempt->>'maxFeePerGas',
                max_priority_fee_per_gas = e.attempt->>'maxPriorityFeePerGas', updated_at = now()
           FROM unnest($1::text[], $2::jsonb[]) AS e(id, attempt)
          WHERE t.id = e.id AND t.state = 'sent' AND ${held(3)}
          RETURNING t.id, e.attempt->>'hash' AS hash),
       hashes AS (${recordHashes("added")})
       SELECT id FROM added`,
      [entries.map((e) => e.id), entries.map((e) => JSON.stringify(e.attempt)), this.owner],
    );
    return result.rows.map((r) => r.id);
  }

  /**
   * Marks a sent write stuck (`reason`: `fee-cap`, re-priced up to the fee cap it reserved and
   * still not mined; `not-mined`, not mined within `STUCK_AFTER_BLOCKS` blocks; `nonce-gap`, held
   * by a lower nonce not mined), once: the mark and its `transaction.stuck` event in one
   * statement (`outcome-events.ts` `stuckEventSql`). The first reason stays.
   *
   * @returns whether this call marked it (false: marked before, no longer sent, or the lease is gone)
   */
  async markStuck(id: string, reason: StuckReason): Promise<boolean> {
    const result = await this.#database.pool.query<{ id: string }>(
      `WITH marked AS (
         UPDATE transactions t SET stuck_since = now(), stuck_reason = $2, updated_at = now()
          WHERE t.id = $1 AND t.state = 'sent' AND t.stuck_since IS NULL AND ${held(3)}
          RETURNING ${OUTCOME_COLUMNS}, t.stuck_since, t.stuck_reason),
       events AS (${stuckEventSql("marked")})
       SELECT id FROM marked`,
      [id, reason, this.owner],
    );
    return result.rows.length === 1;
  }

  /** Notes that the node refused an attempt for good (it can never be mined). */
  async refuseAttempt(id: string, hash: string, reason: string): Promise<void> {
    await this.#markAttempt(id, hash, "refused", reason);
  }

  async #markAttempt(id: string, hash: string, field: string, value: string): Promise<void> {
    await this.#database.pool.query(
      `UPDATE transactions t
          SET attempts = (SELECT jsonb_agg(CASE WHEN a->>'hash' = $2 THEN a || jsonb_build_object($3::text, $4::text) ELSE a END ORDER BY ord)
                            FROM jsonb_array_elements(t.attempts) WITH ORDINALITY AS x(a, ord)),
              updated_at = now()
        WHERE t.id = $1 AND t.state = 'sent' AND ${held(5)}`,
      [id, hash, field, value, this.owner],
    );
  }

  /**
   * Rows seen in a block: `mined` (waiting for confirmations) or their final state, in one
   * statement; waiting requests in every process are told of the final ones (`NOTIFY`).
   *
   * @returns the ids that became final (a row already final elsewhere is left alone)
   */
  async finalise(entries: readonly Finalisation[]): Promise<string[]> {
    if (entries.length === 0) return [];
    const result = await this.#database.pool.query<{ id: string; state: string }>(
      updateNotifyingFinal(
        `UPDATE transactions t
          SET state = e.state, receipt = e.receipt, result = e.result, error = e.error,
              error_kind = e.error_kind, last_error = NULL, updated_at = now(),
              mined_at = CASE WHEN e.receipt IS NULL THEN NULL ELSE now() END,
              confirmed_at = CASE WHEN e.state = 'confirmed' THEN now() END,
              failed_at = CASE WHEN e.state = 'failed' THEN now() END,
              cancelled_at = CASE WHEN e.state = 'cancelled' THEN now() END,
              expired_at = CASE WHEN e.state = 'expired' THEN now() END
         FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::jsonb[], $5::text[], $6::text[])
              AS e(id, state, receipt, result, error, error_kind)
        WHERE t.id = e.id AND t.state = ANY($7::text[]) AND ${held(8)}
        RETURNING ${OUTCOME_COLUMNS}`,
        9,
      ),
      [
        entries.map((e) => e.id),
        entries.map((e) => e.status),
        entries.map((e) => (e.receipt === null ? null : JSON.stringify(e.receipt))),
        // A cancelled or expired write (its self-transfer mined) has neither result nor reason.
        entries.map((e) => ("result" in e && e.result !== null ? JSON.stringify(e.result) : null)),
        entries.map((e) => ("reason" in e ? e.reason : null)),
        entries.map((e) =>
          e.status === "failed"
            ? e.errorKind
            : e.status === "mined" && e.reason !== null
              ? "revert"
              : null,
        ),
        ["sent"],
        this.owner,
        TX_CHANNELS.final,
      ],
    );
    return result.rows.filter((r) => r.state !== "mined").map((r) => r.id);
  }

  /**
   * `mined` rows whose block has its confirmations (and still holds their receipt): `confirmed`,
   * or `failed` when the receipt's status was 0. One statement.
   *
   * @returns the ids that became final
   */
  async promote(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const result = await this.#database.pool.query<{ id: string }>(
      updateNotifyingFinal(
        `UPDATE transactions t
            SET state = CASE WHEN ${MINED_BY_CANCEL} AND ${MINED_BY_DEADLINE} THEN 'expired'
                             WHEN ${MINED_BY_CANCEL} THEN 'cancelled'
                             WHEN (t.receipt->>'status')::int = 1 THEN 'confirmed' ELSE 'failed' END,
                confirmed_at = CASE WHEN NOT ${MINED_BY_CANCEL} AND (t.receipt->>'status')::int = 1
                                    THEN now() END,
                failed_at = CASE WHEN NOT ${MINED_BY_CANCEL} AND (t.receipt->>'status')::int <> 1
                                 THEN now() END,
                cancelled_at = CASE WHEN ${MINED_BY_CANCEL} AND NOT ${MINED_BY_DEADLINE}
                                    THEN now() END,
                expired_at = CASE WHEN ${MINED_BY_DEADLINE} THEN now() END,
                updated_at = now()
          WHERE t.id = ANY($1::text[]) AND t.state = 'mined' AND ${held(2)}
          RETURNING ${OUTCOME_COLUMNS}`,
        3,
      ),
      [ids, this.owner, TX_CHANNELS.final],
    );
    return result.rows.map((r) => r.id);
  }

  /**
   * Ends `expired` the wallet's writes whose deadline (`validForSeconds`) passed before anything
   * was sent (queued without a nonce; a batch's group and items alike), by the database's clock,
   * in one statement that tells waiting requests and writes their `transaction.expired` events.
   *
   * @returns the ids that ended
   */
  async expireUnsent(walletId: string): Promise<string[]> {
    const result = await this.#database.pool.query<{ id: string }>(
      updateNotifyingFinal(
        `UPDATE transactions t
            SET state = 'expired', expired_at = now(), last_error = NULL, updated_at = now()
          WHERE t.wallet_id = $1 AND t.state = ANY($2::text[]) AND t.nonce IS NULL
            AND t.valid_until <= now() AND ${held(3)}
          RETURNING ${OUTCOME_COLUMNS}`,
        4,
      ),
      // Only what nothing was sent of (a sent write past its deadline is raced: `sendCancels`).
      [walletId, ["queued"], this.owner, TX_CHANNELS.final],
    );
    return result.rows.map((r) => r.id);
  }

  /** Fails queued rows that were never broadcast (estimate reverted, refused at first send). */
  async failUnsent(
    entries: ReadonlyArray<{ id: string; reason: string; errorKind: TxErrorKind }>,
  ): Promise<string[]> {
    if (entries.length === 0) return [];
    const result = await this.#database.pool.query<{ id: string }>(
      updateNotifyingFinal(
        `UPDATE transactions t
          SET state = 'failed', error = e.error, error_kind = e.error_kind, last_error = NULL,
              failed_at = now(), updated_at = now()
         FROM unnest($1::text[], $2::text[], $3::text[]) AS e(id, error, error_kind)
        WHERE t.id = e.id AND t.state = ANY($4::text[]) AND ${held(5)}
        RETURNING ${OUTCOME_COLUMNS}`,
        6,
      ),
      [
        entries.map((e) => e.id),
        entries.map((e) => e.reason),
        entries.map((e) => e.errorKind),
        ["queued", "sent"],
        this.owner,
        TX_CHANNELS.final,
      ],
    );
    return result.rows.map((r) => r.id);
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
    await inTransaction(this.#database, async (client) => {
      const replaced = await client.query(
        `UPDATE transactions t SET state = 'replaced', error = $2, error_kind = 'rejected',
              replaced_at = now(), updated_at = now()
        WHERE t.id = $1 AND t.state = ANY($3::text[]) AND ${held(4)}`,
        [row.id, reason, sourcesOf("replaced"), this.owner],
      );
      if (replaced.rowCount !== 1)
        throw new LeaseLostError(`transaction ${row.id} cannot be replaced (lease or state)`);
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
      await client.query(recordHashes("(VALUES ($1, $2)) AS f(hash, id)"), [
        filler.attempt.hash,
        filler.id,
      ]);
      await announceFinal(client, [row.id]);
    });
  }

  /**
   * Rows whose nonce another transaction took (proven: `nonceEvidence`) go back to the queue for
   * a new nonce. Their attempts are kept, each marked `superseded` by the hash that took it.
   */
  async requeue(entries: ReadonlyArray<{ id: string; takenBy: string }>): Promise<string[]> {
    if (entries.length === 0) return [];
    const result = await this.#database.pool.query<{ id: string }>(
      `UPDATE transactions t
          SET nonce = NULL, state = 'queued', updated_at = now(),
              attempts = (SELECT coalesce(jsonb_agg(CASE WHEN a ? 'superseded' THEN a ELSE a || jsonb_build_object('superseded', e.taken_by) END ORDER BY ord), '[]'::jsonb)
                            FROM jsonb_array_elements(t.attempts) WITH ORDINALITY AS x(a, ord))
         FROM unnest($1::text[], $2::text[]) AS e(id, taken_by)
        WHERE t.id = e.id AND t.state = ANY($3::text[]) AND ${held(4)}
        RETURNING t.id`,
      [entries.map((e) => e.id), entries.map((e) => e.takenBy), sourcesOf("queued"), this.owner],
    );
    return result.rows.map((r) => r.id);
  }

  /**
   * Rows whose attempt was mined and ran out of gas go back to the queue without a gas limit (the
   * sender estimates it again) for a new nonce. The attempt is kept, marked `outOfGas` and
   * `superseded` by its own hash: that nonce is spent.
   */
  async requeueOutOfGas(entries: ReadonlyArray<{ id: string; hash: string }>): Promise<string[]> {
    if (entries.length === 0) return [];
    const result = await this.#database.pool.query<{ id: string }>(
      `UPDATE transactions t
          SET nonce = NULL, state = 'queued', gas_limit = NULL, updated_at = now(),
              attempts = (SELECT coalesce(jsonb_agg(CASE WHEN a->>'hash' = e.hash THEN a || jsonb_build_object('superseded', e.hash, 'outOfGas', true) ELSE a END ORDER BY ord), '[]'::jsonb)
                            FROM jsonb_array_elements(t.attempts) WITH ORDINALITY AS x(a, ord))
         FROM unnest($1::text[], $2::text[]) AS e(id, hash)
        WHERE t.id = e.id AND t.state = ANY($3::text[]) AND ${held(4)}
        RETURNING t.id`,
      [entries.map((e) => e.id), entries.map((e) => e.hash), sourcesOf("queued"), this.owner],
    );
    return result.rows.map((r) => r.id);
  }

  /** Moves the wallet's next nonce (after a resync from the chain, or a rewind). */
  async setNextNonce(walletId: string, next: number): Promise<void> {
    const result = await this.#database.pool.query(
      `UPDATE wallets SET next_nonce = $2 WHERE id = $1 AND lease_owner = $3`,
      [walletId, next, this.owner],
    );
    if (result.rowCount !== 1) throw new LeaseLostError(`wallet ${walletId}: lease lost`);
  }
}
