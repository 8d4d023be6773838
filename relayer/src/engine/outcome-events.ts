import {
  CANCELLED_REASON,
  EXPIRED_REASON,
  PRIVATE_RESULT_KEYS,
  STATE_RACE_REASONS,
  TRANSACTION_FAILED_PREFIX,
} from "../domain/write-outcome.js";
import type { TxState } from "./tx-lifecycle.js";
import { isGroupSql } from "./tx-rows.js";

/**
 * The `transaction.*` webhook event of each final state (docs/webhooks.md "Transaction
 * outcomes"): a write's end, told to the organization's webhooks subscribed to it.
 */
export const OUTCOME_EVENT_OF_STATE = {
  confirmed: "transaction.confirmed",
  failed: "transaction.failed",
  // A write whose nonce went to a gap filler failed: the API answers its reason.
  replaced: "transaction.failed",
  cancelled: "transaction.cancelled",
  expired: "transaction.expired",
} as const satisfies Partial<Record<TxState, string>>;

/**
 * The columns of a transaction row the outcome events are built from: an `UPDATE transactions t
 * ... RETURNING ${OUTCOME_COLUMNS}` feeds `outcomeEventsSql` inside the same statement.
 */
export const OUTCOME_COLUMNS =
  "t.id, t.state, t.org_id, t.kind, t.parent_id, t.to_address, t.data, t.receipt, t.result, t.error, t.idempotency_key";

/** A constant as an SQL literal (the constants here are the service's own words). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const textArray = (items: readonly string[]) => `ARRAY[${items.map(literal).join(", ")}]::text[]`;

/**
 * SQL: writes the outcome event of each row of `source` (a relation with `OUTCOME_COLUMNS`) that
 * is final, into the webhook outbox (`webhook_events`), so the event commits with the state
 * change or not at all, and nothing is lost on a crash. One event per write the caller made:
 * a batch's items and the engine's own gap fillers have none (their group, or nothing, does).
 *
 * - Written only while the organization has an enabled webhook subscribed to the kind (the
 *   release fans it out to those): a write no one listens for costs no outbox row.
 * - `pending`, like every chain event: released by the indexer with the events of the receipt's
 *   block once it has its confirmations (a reorg that drops the block deletes it with them, and
 *   the write, reopened, ends again), or at its next step when there is no receipt.
 * - Its id is deterministic (write, kind, receipt block), so writing it twice is a no-op.
 * - `data`: `transactionId`, `kind` (the write kind), `status`, `idempotencyKey` when one was
 *   given; `result` (the write's result, without `PRIVATE_RESULT_KEYS`) when there is one,
 *   `reason` when it did not succeed, in the API's words (`domain/write-outcome.ts`).
 */
export function outcomeEventsSql(source: string): string {
  const kindOf = Object.entries(OUTCOME_EVENT_OF_STATE)
    .map(([state, kind]) => `WHEN ${literal(state)} THEN ${literal(kind)}`)
    .join(" ");
  // A batch (a group row) fails only when every item did; its items carry their own reasons.
  const reason = `CASE WHEN c.state = 'cancelled' THEN ${literal(CANCELLED_REASON)}
                       WHEN c.state = 'expired' THEN ${literal(EXPIRED_REASON)}
                       WHEN c.error = ANY(${textArray(STATE_RACE_REASONS)}) THEN c.error
                       WHEN c.error IS NULL AND ${isGroupSql("c")} THEN ${literal(`${TRANSACTION_FAILED_PREFIX}every item failed`)}
                       ELSE ${literal(TRANSACTION_FAILED_PREFIX)} || coalesce(c.error, 'unknown') END`;
  return `INSERT INTO webhook_events (id, org_id, kind, block_number, block_hash, tx_hash, payload, status)
     SELECT 'evt_' || md5(o.id || '|' || o.kind || '|' || coalesce(o.block_hash, '')), o.org_id, o.kind,
            o.block_number, o.block_hash, o.tx_hash,
            jsonb_build_object('event', o.kind, 'timestamp', (extract(epoch FROM now()) * 1000)::bigint,
                               'orgId', o.org_id, 'txHash', o.tx_hash, 'blockNumber', o.block_number,
                               'data', o.data),
            'pending'
       FROM (
         SELECT c.id, c.org_id, CASE c.state ${kindOf} END AS kind,
                (c.receipt->>'blockNumber')::bigint AS block_number,
                c.receipt->>'blockHash' AS block_hash, c.receipt->>'hash' AS tx_hash,
                jsonb_build_object('transactionId', c.id, 'kind', c.kind, 'status', c.state)
                || CASE WHEN c.idempotency_key IS NULL THEN '{}'::jsonb
                        ELSE jsonb_build_object('idempotencyKey', c.idempotency_key) END
                || CASE WHEN c.result IS NULL THEN '{}'::jsonb
                        ELSE jsonb_build_object('result', c.result - ${textArray(PRIVATE_RESULT_KEYS)}) END
                || CASE WHEN c.state = 'confirmed' THEN '{}'::jsonb
                        ELSE jsonb_build_object('reason', ${reason}) END AS data
           FROM ${source} c
          WHERE c.parent_id IS NULL AND c.kind <> 'nonce-fill'
            AND c.state = ANY(${textArray(Object.keys(OUTCOME_EVENT_OF_STATE))})) o
      WHERE EXISTS (SELECT 1 FROM webhooks w
                     WHERE w.org_id = o.org_id AND w.enabled AND w.deleted_at IS NULL
                       AND o.kind = ANY(w.events))
     ON CONFLICT (id) DO NOTHING`;
}

/**
 * SQL: writes `transaction.stuck` for each row of `source` (a relation with `OUTCOME_COLUMNS`,
 * `stuck_since` and `stuck_reason`), once per write (its id is the write's and the kind's), on
 * the same terms as the outcome events: only while a webhook of the org subscribes to it,
 * pending, released at the indexer's next step. `data`: `transactionId`, `kind`, `status`
 * (`sent`), `idempotencyKey` when given, `reason` (`fee-cap`) and `since` (ISO 8601).
 */
export function stuckEventSql(source: string): string {
  return `INSERT INTO webhook_events (id, org_id, kind, block_number, block_hash, tx_hash, payload, status)
     SELECT 'evt_' || md5(c.id || '|transaction.stuck|'), c.org_id, 'transaction.stuck', NULL, NULL, NULL,
            jsonb_build_object('event', 'transaction.stuck',
                               'timestamp', (extract(epoch FROM c.stuck_since) * 1000)::bigint,
                               'orgId', c.org_id, 'txHash', NULL, 'blockNumber', NULL,
                               'data', jsonb_build_object('transactionId', c.id, 'kind', c.kind,
                                                          'status', c.state, 'reason', c.stuck_reason,
                                                          'since', to_char(c.stuck_since AT TIME ZONE 'UTC',
                                                                           'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                                       || CASE WHEN c.idempotency_key IS NULL THEN '{}'::jsonb
                                               ELSE jsonb_build_object('idempotencyKey', c.idempotency_key) END),
            'pending'
       FROM ${source} c
      WHERE c.parent_id IS NULL
        AND EXISTS (SELECT 1 FROM webhooks w
                     WHERE w.org_id = c.org_id AND w.enabled AND w.deleted_at IS NULL
                       AND 'transaction.stuck' = ANY(w.events))
     ON CONFLICT (id) DO NOTHING`;
}
