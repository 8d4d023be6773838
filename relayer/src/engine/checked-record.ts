import { transactions } from "../db/schema/index.js";
import type { HeldWrite } from "./unrecorded-writes.js";

/** Fields to insert a new row. */
export type NewTxRow = typeof transactions.$inferInsert;

/** The fields a write is recorded with (`TxStore.record`); every other column starts at its default. */
export const RECORDED_FIELDS = [
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
  "idempotencyKey",
  "validUntil",
  "state",
  "error",
  "errorKind",
  "failedAt",
] as const satisfies ReadonlyArray<keyof NewTxRow>;
export type RecordedRow = Pick<NewTxRow, (typeof RECORDED_FIELDS)[number]>;

/** An org's custodial wallet: what never changes of it. */
export interface OrgWalletRef {
  id: string;
  orgId: string;
  address: string;
  /** The backend that holds its key (`wallets.signer_backend`), set when the wallet is made. */
  signerBackend: string;
}

/**
 * A write to record only if its org's checks pass against the rows the database holds as the
 * statement runs (`TxStore.record`): the org's queue is under its bound, and the wallet holds
 * what the write reserves beside what its live writes reserved.
 */
export interface CheckedWrite {
  wallet: OrgWalletRef;
  /** The write's rows: its root first (a batch's items after it). */
  rows: readonly RecordedRow[];
  /** The wei the write reserves: value + gas limit × fee cap over its calls. */
  needWei: bigint;
  /**
   * The wallet's balance and the block it is known to include (undefined: no head seen yet, so
   * every write mined keeps its reservation). A write mined after that block may be settled
   * while its cost is not in the balance: it still counts as reserved.
   */
  balance: { value: bigint; block: number | undefined };
  /**
   * The org's writes held in this process (`UnrecordedWrites`): those whose rows the statement
   * does not see count as live and reserved.
   */
  held: readonly HeldWrite[];
  /** The org's live writes allowed at most (the queue bound: 429 at it). */
  maxLiveRoots: number;
  /**
   * The digest of the org's policy the write was judged by (`PolicyForWrite.digest`; null: the
   * org had none), to be found still in force, or the write is not recorded (`policy-changed`);
   * undefined: not judged here (a write people approved).
   */
  policyJudged?: string | null | undefined;
}

/** What became of a `CheckedWrite`. */
export type RecordVerdict =
  | { outcome: "recorded" }
  /**
   * Refused: the org's queue is at its bound, or the wallet is short. Nothing was written.
   * `liveRoots` and `reservedWei` count the held writes the statement did not see.
   */
  | { outcome: "queue-full" | "short"; liveRoots: number; reservedWei: bigint }
  /** Another request holds the write's `Idempotency-Key`. Nothing was written. */
  | { outcome: "key-taken" }
  /**
   * The org's policy is no longer the one the write was judged by (`policyJudged`): judge it
   * again. Nothing was written.
   */
  | { outcome: "policy-changed" }
  /** The org has no wallet. */
  | { outcome: "no-wallet" };

const columns = RECORDED_FIELDS.map((field) => transactions[field]);
const ROW_PARAMS = columns.length;

/**
 * Checks and records writes in one statement, so one round trip: for each write, the org's live
 * writes and the wallet's reservations as the statement sees them, its verdict, and its rows
 * inserted only if it passed (`INSERT ... SELECT FROM unnest(...)`, one array parameter per
 * field, so the text is the same whatever the number of rows). It wakes no engine: the recording
 * process does, once the statement commits (`Engine.submit`). Parameters: `checkedRecordParams`.
 *
 * A write judged by its org's policy (`policyJudged`) is recorded only while that policy is the
 * one stored (the digest of its jsonb text); else its verdict is `policy-changed`, before any
 * other.
 *
 * The reservations: live writes not yet mined, and writes mined after the block the balance is
 * known to include (a range of transactions_wallet_receipt_block_idx: a block's rows of the
 * wallet at most while the head is current).
 *
 * The org's live writes are counted by its wallet (one per org, `wallets_org_id_key`; every row
 * of an org is on its wallet), through transactions_wallet_live_idx. Counted by org, through
 * transactions_org_state_idx, the count visited every version a write ever had in a live state:
 * its bitmap scan never marks the entries of dead versions, so until a vacuum each count grew
 * with the org's history. Late in a bench run with autovacuum off, one org's count scanned 833
 * entries and 467 heap pages for 10 live writes, while the wallet index held 30 entries for them
 * (the engine's own reads of it mark dead entries as they pass them).
 */
export const CHECKED_RECORD_SQL = (() => {
  const names = columns.map((column) => column.name).join(", ");
  const aliases = columns.map((_, i) => `f${i}`);
  const p = (n: number) => `$${ROW_PARAMS + n}`;
  return `WITH asks AS (
     SELECT * FROM unnest(${p(2)}::int[], ${p(3)}::text[], ${p(4)}::text[], ${p(5)}::numeric[],
                          ${p(6)}::numeric[], ${p(7)}::bigint[], ${p(8)}::int[],
                          ${p(12)}::bool[], ${p(13)}::text[])
       AS a(i, org_id, wallet_id, need, balance, balance_block, max_live, judged, policy)),
   held AS (
     SELECT h.i, count(*)::int AS roots, sum(h.wei) AS wei
       FROM unnest(${p(9)}::int[], ${p(10)}::text[], ${p(11)}::numeric[]) AS h(i, id, wei)
      WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = h.id)
      GROUP BY h.i),
   states AS (
     SELECT a.*,
            coalesce(held.roots, 0) + (SELECT count(*) FROM transactions t
              WHERE t.wallet_id = a.wallet_id AND t.parent_id IS NULL AND t.state IN ('queued', 'sent', 'mined'))::int AS live_roots,
            coalesce(held.wei, 0) + (SELECT coalesce(sum(t.value::numeric + coalesce(t.gas_limit, '0')::numeric
                                 * coalesce(t.fee_cap, t.max_fee_per_gas, '0')::numeric), 0)
               FROM transactions t
              WHERE t.wallet_id = a.wallet_id
                AND (t.state IN ('queued', 'sent')
                     OR (t.receipt IS NOT NULL AND (t.receipt->>'blockNumber')::bigint > a.balance_block))) AS reserved
       FROM asks a
       JOIN wallets w ON w.id = a.wallet_id AND w.org_id = a.org_id
       LEFT JOIN held ON held.i = a.i),
   verdicts AS (
     SELECT s.i, s.wallet_id, s.live_roots, s.reserved,
            CASE WHEN s.judged AND (SELECT encode(sha256(convert_to(p.policy::text, 'UTF8')), 'hex')
                                       FROM org_policies p WHERE p.org_id = s.org_id)
                               IS DISTINCT FROM s.policy THEN 'policy-changed'
                 WHEN s.live_roots >= s.max_live THEN 'queue-full'
                 WHEN s.need > greatest(s.balance - s.reserved, 0) THEN 'short'
                 ELSE 'recorded' END AS outcome
       FROM states s),
   recorded AS (
     INSERT INTO transactions (${names})
     SELECT ${aliases.map((a) => `r.${a}`).join(", ")}
       FROM unnest(${columns.map((column, i) => `$${i + 1}::${column.getSQLType()}[]`).join(", ")}, ${p(1)}::int[])
         AS r(${aliases.join(", ")}, write_i)
       JOIN verdicts v ON v.i = r.write_i AND v.outcome = 'recorded'
     RETURNING 1)
   SELECT v.i, v.outcome, v.live_roots, v.reserved::text AS reserved,
          (SELECT count(*) FROM recorded) AS inserted
     FROM verdicts v`;
})();

/** One row of `CHECKED_RECORD_SQL`'s answer. */
export interface VerdictRow {
  i: number;
  outcome: "recorded" | "queue-full" | "short" | "policy-changed";
  live_roots: number;
  reserved: string;
}

/**
 * `CHECKED_RECORD_SQL`'s parameters for `writes`, each known by its index in `writes`: one array
 * per row field (each value, or the schema's default of a field a row leaves out, as the Drizzle
 * column sends it to the driver), then the write of each row, then one array per check input.
 */
export function checkedRecordParams(
  writes: ReadonlyArray<{ i: number; write: CheckedWrite }>,
): unknown[] {
  const rows = writes.flatMap(({ i, write }) => write.rows.map((row) => ({ i, row })));
  const fields = RECORDED_FIELDS.map((field) => {
    const column = transactions[field];
    return rows.map(({ row }) => {
      const value: unknown = row[field] ?? column.default;
      return value === undefined || value === null ? null : column.mapToDriverValue(value);
    });
  });
  const asks = writes.map(({ write }) => write);
  const held = writes.flatMap(({ i, write }) => write.held.map((h) => ({ i, ...h })));
  return [
    ...fields,
    rows.map(({ i }) => i),
    writes.map(({ i }) => i),
    asks.map((w) => w.wallet.orgId),
    asks.map((w) => w.wallet.id),
    asks.map((w) => w.needWei.toString()),
    asks.map((w) => w.balance.value.toString()),
    asks.map((w) => w.balance.block ?? Number.MAX_SAFE_INTEGER),
    asks.map((w) => w.maxLiveRoots),
    held.map((h) => h.i),
    held.map((h) => h.id),
    held.map((h) => h.wei.toString()),
    asks.map((w) => w.policyJudged !== undefined),
    asks.map((w) => w.policyJudged ?? null),
  ];
}

/** A verdict row as the executor reads it. */
export function verdictOf(row: VerdictRow | undefined): RecordVerdict {
  if (row === undefined) return { outcome: "no-wallet" };
  if (row.outcome === "recorded" || row.outcome === "policy-changed")
    return { outcome: row.outcome };
  return {
    outcome: row.outcome,
    liveRoots: row.live_roots,
    reservedWei: BigInt(row.reserved.split(".")[0] ?? "0"),
  };
}
