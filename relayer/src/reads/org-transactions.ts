import type { Database } from "../db/client.js";
import type { TxState } from "../db/schema/index.js";
import { isGroupSql } from "../engine/tx-rows.js";
import { cursorCodec, prefixedId, timestampKey, type Page } from "../shared/cursor.js";
import type { OrgTransactionSummary } from "../domain/activity.js";

export type { OrgTransactionSummary };

/** Filters of `GET /api/v1/transactions`. */
export interface OrgTransactionFilters {
  limit: number;
  cursor?: string | undefined;
  status?: TxState | undefined;
  kind?: string | undefined;
}

interface Row {
  id: string;
  kind: string;
  state: TxState;
  nonce: string | null;
  hashes: string[];
  receipt: { hash: string; blockNumber: number } | null;
  result: Record<string, unknown> | null;
  error: string | null;
  error_kind: string | null;
  last_error: string | null;
  created_key: string;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  confirmed_at: string | null;
  failed_at: string | null;
}

const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A failure in words. `errorKind` says where it happened (see the transactions table): the
 * contract reverted, the node refused the transaction before mining, or the relayer itself failed.
 */
export function failureReason(
  state: TxState,
  error: string | null,
  errorKind: string | null,
  lastError: string | null,
): string | null {
  if (state === "cancelled") return "Cancelled before it was sent: nothing reached the chain.";
  if (state === "expired")
    return "Its deadline (validForSeconds) passed before it was sent: nothing reached the chain.";
  if (state === "replaced")
    return "Another transaction used this one's nonce, so it will never be mined; nothing was charged for it.";
  if (state === "failed") {
    const detail = error ?? "no reason recorded";
    switch (errorKind) {
      case "revert":
        return `The contract refused it: ${detail}. Gas was spent, nothing else changed.`;
      case "rejected":
        return `The chain node refused it before mining: ${detail}. Nothing was spent.`;
      default:
        return `The relayer could not complete it: ${detail}.`;
    }
  }
  if (lastError !== null) return `Still trying: ${lastError}`;
  return null;
}

/** Cursor of the next (older) page: base64url of `{"t":"<created_at, µs>","i":"<id>"}`. */
const transactionCursor = cursorCodec({ t: timestampKey, i: prefixedId("tx") });

/**
 * The organization's writes, newest first, with keyset pagination and optional filters on the
 * state and the write kind. Only top-level rows: a batch issuance is one entry (its hashes are
 * its items' hashes). Another organization's writes are never returned. As in
 * `GET /api/v1/transactions/{id}`, a write whose receipt block the indexer has not applied yet
 * reads as `sent`, so `confirmed` means the read API already shows its effect.
 *
 * @example
 * await listOrgTransactions(db, "org_1", { limit: 20, status: "failed" });
 */
export async function listOrgTransactions(
  database: Database,
  orgId: string,
  filters: OrgTransactionFilters,
): Promise<Page<OrgTransactionSummary>> {
  const values: unknown[] = [orgId];
  const where = ["t.org_id = $1", "t.parent_id IS NULL"];
  if (filters.cursor !== undefined) {
    const { t, i } = transactionCursor.decode(filters.cursor);
    values.push(t, i);
    where.push(`(t.created_at, t.id) < ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  if (filters.status !== undefined) {
    values.push(filters.status);
    where.push(`t.state = $${values.length}`);
  }
  if (filters.kind !== undefined) {
    values.push(filters.kind);
    where.push(`t.kind = $${values.length}`);
  }
  values.push(filters.limit + 1);
  const { rows } = await database.pool.query<Row>(
    `SELECT t.id, t.kind,
            CASE WHEN t.receipt IS NOT NULL AND (t.receipt->>'blockNumber')::bigint >
                      coalesce((SELECT block_number FROM indexer_cursor WHERE id = 'main'), -1)
                 THEN 'sent' ELSE t.state END AS state,
            t.nonce::text, t.receipt, t.result, t.error,
            t.error_kind, t.last_error,
            CASE WHEN ${isGroupSql("t")}
              THEN (SELECT coalesce(jsonb_agg(a->>'hash' ORDER BY c.item_index), '[]'::jsonb)
                      FROM transactions c, jsonb_array_elements(c.attempts) a WHERE c.parent_id = t.id)
              ELSE (SELECT coalesce(jsonb_agg(a->>'hash'), '[]'::jsonb) FROM jsonb_array_elements(t.attempts) a)
            END AS hashes,
            to_char(t.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key,
            ${iso("t.created_at")} AS created_at, ${iso("t.updated_at")} AS updated_at,
            ${iso("t.sent_at")} AS sent_at, ${iso("t.confirmed_at")} AS confirmed_at,
            ${iso("t.failed_at")} AS failed_at
       FROM transactions t
      WHERE ${where.join(" AND ")}
      ORDER BY t.created_at DESC, t.id DESC
      LIMIT $${values.length}`,
    values,
  );
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1);
  return {
    data: page.map((row) => ({
      transactionId: row.id,
      kind: row.kind,
      status: row.state,
      nonce: row.nonce === null ? null : Number(row.nonce),
      txHash: row.receipt?.hash ?? row.hashes.at(-1) ?? null,
      hashes: row.hashes,
      blockNumber: row.receipt?.blockNumber ?? null,
      result: row.result,
      error: row.error,
      reason: failureReason(row.state, row.error, row.error_kind, row.last_error),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      sentAt: row.sent_at,
      confirmedAt: row.confirmed_at,
      failedAt: row.failed_at,
    })),
    nextCursor:
      rows.length > filters.limit && last !== undefined
        ? transactionCursor.encode({ t: last.created_key, i: last.id })
        : null,
  };
}
