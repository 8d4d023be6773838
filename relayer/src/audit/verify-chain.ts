import type pg from "pg";
import type { AuditChanges } from "../domain/audit.js";
import { auditHash, GENESIS_HASH } from "./audit-hash.js";

/** The outcome of a walk over the audit chain. */
export type ChainVerdict =
  | { intact: true; rows: number }
  | {
      intact: false;
      /** Rows checked and found sound before the break. */
      rows: number;
      /** The row at which the chain breaks (a missing row's id when rows were removed). */
      brokenAt: string;
      /** What was found there and what was expected. */
      reason: string;
    };

interface StoredRow {
  id: string;
  at: string;
  actor: string;
  org_id: string | null;
  action: string;
  target: string | null;
  request_id: string | null;
  source_address: string | null;
  changes: AuditChanges;
  prev_hash: string;
  hash: string;
}

const BATCH = 1_000;

/**
 * Walks the whole audit chain in id order, in one read-only snapshot, and returns the first
 * broken link:
 * - a row whose contents do not hash to its stored hash (the row was edited);
 * - a row whose `prev_hash` is not the previous row's hash (a row was edited and re-hashed, or
 *   one was inserted);
 * - a missing id (rows are numbered 1, 2, 3, ... without gaps: a row was removed);
 * - a chain head that does not name the last row and its hash (rows were cut off the end).
 *
 * @param pool any pool on the relayer's database
 * @example
 * const verdict = await verifyAuditChain(database.pool);
 * if (!verdict.intact) console.error(`broken at row ${verdict.brokenAt}: ${verdict.reason}`);
 */
export async function verifyAuditChain(pool: pg.Pool): Promise<ChainVerdict> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      return await walk(client);
    } finally {
      await client.query("ROLLBACK").catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

async function walk(client: pg.PoolClient): Promise<ChainVerdict> {
  const { rows: heads } = await client.query<{ last_id: string; last_hash: string }>(
    "SELECT last_id::text, last_hash FROM audit_chain_head WHERE id = 1",
  );
  const head = heads[0];
  if (head === undefined)
    return { intact: false, rows: 0, brokenAt: "1", reason: "the chain head row is missing" };

  let previous = { id: 0n, hash: GENESIS_HASH };
  let checked = 0;
  const broken = (brokenAt: bigint | string, reason: string): ChainVerdict => ({
    intact: false,
    rows: checked,
    brokenAt: brokenAt.toString(),
    reason,
  });
  for (;;) {
    const { rows } = await client.query<StoredRow>(
      `SELECT id::text, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
              actor, org_id, action, target, request_id, source_address, changes, prev_hash, hash
         FROM audit_log WHERE audit_log.id > $1 ORDER BY audit_log.id LIMIT ${BATCH}`,
      [previous.id.toString()],
    );
    for (const row of rows) {
      const id = BigInt(row.id);
      const expectedId = previous.id + 1n;
      if (id !== expectedId) {
        return broken(
          expectedId,
          `row ${expectedId} is missing: row ${previous.id === 0n ? "(none)" : previous.id} is followed by row ${id}`,
        );
      }
      if (row.prev_hash !== previous.hash) {
        return broken(
          id,
          `prev_hash is ${row.prev_hash}, expected ${previous.hash} (${previous.id === 0n ? "the genesis hash" : `the hash of row ${previous.id}`})`,
        );
      }
      const computed = auditHash({
        id: row.id,
        at: row.at,
        actor: row.actor,
        orgId: row.org_id,
        action: row.action,
        target: row.target,
        requestId: row.request_id,
        sourceAddress: row.source_address,
        changes: row.changes,
        prevHash: row.prev_hash,
      });
      if (computed !== row.hash) {
        return broken(
          id,
          `its contents hash to ${computed}, expected the stored hash ${row.hash} (the row was changed)`,
        );
      }
      previous = { id, hash: row.hash };
      checked += 1;
    }
    if (rows.length < BATCH) break;
  }

  const headId = BigInt(head.last_id);
  if (headId !== previous.id) {
    return headId > previous.id
      ? broken(
          previous.id + 1n,
          `row ${previous.id + 1n} is missing: the chain head records ${headId} rows, the log ends at row ${previous.id}`,
        )
      : broken(
          headId + 1n,
          `row ${headId + 1n} is not in the chain head, which records ${headId} rows (the head was changed)`,
        );
  }
  if (head.last_hash !== previous.hash) {
    return broken(
      previous.id,
      `the chain head records hash ${head.last_hash} for row ${previous.id}, expected ${previous.hash}`,
    );
  }
  return { intact: true, rows: checked };
}
