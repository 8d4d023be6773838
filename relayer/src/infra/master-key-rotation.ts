import type pg from "pg";
import { inTransaction, type Database } from "../db/client.js";
import { BaseError } from "../errors.js";
import { envelopeKeyId, type KeyStore } from "../wallets/key-store.js";

/**
 * Re-sealing every KeyStore envelope from the previous master key to the current one (`npm run
 * rotate-master-key`; docs/custody.md, "Rotating the master key"), in committed batches, while the
 * service keeps running with both keys.
 *
 * Resumable by construction: a row is re-sealed only while its envelope still names the previous
 * key, and written back only if it is unchanged since it was read (compare-and-set), so a run
 * killed at any point and started again re-seals exactly the rows still under the previous key,
 * never one twice. Rows the service adds meanwhile are sealed under the current key already
 * (every process of a rotation runs with MASTER_KEY = the new key); a row written behind the
 * scan is found by the next pass, which runs until one finds nothing left.
 */

/** The rotation cannot finish; the message says what to do. */
export class MasterKeyRotationError extends BaseError {
  override name = "MasterKeyRotationError";
}

/**
 * Every column holding a KeyStore envelope, with the associated data it was sealed with (the
 * row id). PKCS#11 wallets are left out: their `encrypted_key` is only a URI naming a key that
 * stays in the token, which the master key never encrypted. A new sealed column belongs here.
 */
export const SEALED_COLUMNS = [
  {
    label: "custodial keys",
    table: "wallets",
    column: "encrypted_key",
    filter: "signer_backend = 'local'",
  },
  { label: "webhook secrets", table: "webhooks", column: "encrypted_secret", filter: "true" },
  {
    // The secret a rotation keeps for its grace period: counted with the webhook secrets.
    label: "webhook secrets",
    table: "webhooks",
    column: "previous_encrypted_secret",
    filter: "previous_encrypted_secret IS NOT NULL",
  },
  // A person's TOTP secret (docs/people.md), sealed with the user id.
  {
    label: "TOTP secrets",
    table: "users",
    column: "totp_secret_sealed",
    filter: "totp_secret_sealed IS NOT NULL",
  },
] as const;

/** One of `SEALED_COLUMNS`. */
export type SealedColumn = (typeof SEALED_COLUMNS)[number];
/** Envelopes per sealed column, by label. */
export type SealedCounts = Record<SealedColumn["label"], number>;

/** The SQL expression of an envelope's key id (`v1:<keyId>:...`). */
function keyIdOf(column: string): string {
  return `split_part(${column}, ':', 2)`;
}

/**
 * How many envelopes of each sealed column are not under `currentKeyId`.
 *
 * @example
 * await countNotSealedUnder(database, keyStore.keyId) // { "custodial keys": 3, "webhook secrets": 1 }
 */
export async function countNotSealedUnder(
  queryable: Pick<pg.Pool, "query"> | pg.PoolClient,
  currentKeyId: string,
): Promise<SealedCounts> {
  const counts = {} as SealedCounts;
  for (const sealed of SEALED_COLUMNS) {
    const { rows } = await queryable.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${sealed.table}
        WHERE ${sealed.filter} AND ${keyIdOf(sealed.column)} <> $1`,
      [currentKeyId],
    );
    counts[sealed.label] = (counts[sealed.label] ?? 0) + Number(rows[0]?.n ?? 0);
  }
  return counts;
}

/** The sum of `counts`. */
export function totalOf(counts: SealedCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** One committed batch, for progress output. */
export interface RotationProgress {
  label: SealedColumn["label"];
  /** Batches committed by this run so far (all columns). */
  batch: number;
  /** Envelopes re-sealed in this batch. */
  resealed: number;
  /** Re-sealed by this run so far, per column. */
  done: SealedCounts;
  /** Still under another key than the current one when the run started, per column. */
  total: SealedCounts;
}

/** Options of `resealAll`. */
export interface ResealOptions {
  /** Rows per committed batch (default 100). */
  batchSize?: number;
  /** Told after each committed batch; awaited (a test hook may pause here). */
  onBatch?: (progress: RotationProgress) => void | Promise<void>;
}

/** What `resealAll` did. */
export interface ResealResult {
  resealed: SealedCounts;
  batches: number;
  passes: number;
}

const MAX_PASSES = 10;

/**
 * Re-seals every envelope under `keyStore.previousKeyId` with the current key, one committed
 * batch at a time, until a pass finds none left.
 *
 * @throws MasterKeyRotationError when the store has no previous key, when envelopes under a key
 *   that is neither remain (named by row), or when rows keep changing under the scan
 */
export async function resealAll(
  database: Database,
  keyStore: KeyStore,
  options: ResealOptions = {},
): Promise<ResealResult> {
  const previousKeyId = keyStore.previousKeyId;
  if (previousKeyId === undefined) {
    throw new MasterKeyRotationError(
      "No previous master key: set MASTER_KEY to the new key and MASTER_KEY_PREVIOUS to the old one",
    );
  }
  const batchSize = options.batchSize ?? 100;
  const total = await countNotSealedUnder(database.pool, keyStore.keyId);
  const done = Object.fromEntries(SEALED_COLUMNS.map((s) => [s.label, 0])) as SealedCounts;
  let batches = 0;

  for (let pass = 1; pass <= MAX_PASSES; pass += 1) {
    let resealedThisPass = 0;
    for (const sealed of SEALED_COLUMNS) {
      let cursor = "";
      for (;;) {
        const batch = await inTransaction(database, (client) =>
          resealBatch(client, sealed, keyStore, previousKeyId, cursor, batchSize),
        );
        if (batch.scanned === 0) break;
        cursor = batch.lastId;
        if (batch.resealed === 0) continue;
        batches += 1;
        resealedThisPass += batch.resealed;
        done[sealed.label] += batch.resealed;
        await options.onBatch?.({
          label: sealed.label,
          batch: batches,
          resealed: batch.resealed,
          done: { ...done },
          total,
        });
      }
    }
    const left = await listNotSealedUnder(database, keyStore.keyId);
    if (left.length === 0) return { resealed: done, batches, passes: pass };
    const foreign = left.filter((row) => row.keyId !== previousKeyId);
    if (foreign.length > 0) {
      const shown = foreign
        .slice(0, 5)
        .map((row) => `${row.table} ${row.id} (key id ${row.keyId || "none"})`)
        .join(", ");
      throw new MasterKeyRotationError(
        `${foreign.length} envelope(s) are sealed under neither MASTER_KEY nor MASTER_KEY_PREVIOUS ` +
          `and cannot be re-sealed: ${shown}. Nothing was lost; the rotation is not complete.`,
      );
    }
    // Rows under the previous key remain: written or changed behind this pass. Go again, unless
    // the pass changed nothing at all (then another would not either).
    if (resealedThisPass === 0 && pass > 1) break;
  }
  throw new MasterKeyRotationError(
    "Envelopes under the previous master key keep appearing: is a relayer still running with only " +
      "the old MASTER_KEY? Restart every process with MASTER_KEY (new) and MASTER_KEY_PREVIOUS " +
      "(old), then run npm run rotate-master-key again.",
  );
}

/** Re-seals up to `limit` rows with ids above `afterId`; returns what it scanned and changed. */
async function resealBatch(
  client: pg.PoolClient,
  sealed: SealedColumn,
  keyStore: KeyStore,
  previousKeyId: string,
  afterId: string,
  limit: number,
): Promise<{ scanned: number; resealed: number; lastId: string }> {
  const { rows } = await client.query<{ id: string; envelope: string }>(
    `SELECT id, ${sealed.column} AS envelope FROM ${sealed.table}
      WHERE ${sealed.filter} AND id > $1 AND ${keyIdOf(sealed.column)} <> $2
      ORDER BY id LIMIT $3`,
    [afterId, keyStore.keyId, limit],
  );
  const last = rows.at(-1);
  if (last === undefined) return { scanned: 0, resealed: 0, lastId: afterId };
  const ids: string[] = [];
  const before: string[] = [];
  const after: string[] = [];
  for (const row of rows) {
    if (envelopeKeyId(row.envelope) !== previousKeyId) continue; // reported after the pass
    ids.push(row.id);
    before.push(row.envelope);
    after.push(keyStore.seal(keyStore.open(row.envelope, row.id), row.id));
  }
  if (ids.length === 0) return { scanned: rows.length, resealed: 0, lastId: last.id };
  // Compare-and-set: a row changed since it was read keeps its new value (the next pass sees it).
  const updated = await client.query(
    `UPDATE ${sealed.table} AS t SET ${sealed.column} = v.after
       FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, before, after)
      WHERE t.id = v.id AND t.${sealed.column} = v.before`,
    [ids, before, after],
  );
  return { scanned: rows.length, resealed: updated.rowCount ?? 0, lastId: last.id };
}

/** The rows whose envelope is not under `currentKeyId`, with the key id each names. */
async function listNotSealedUnder(
  database: Database,
  currentKeyId: string,
): Promise<Array<{ table: string; id: string; keyId: string }>> {
  const found: Array<{ table: string; id: string; keyId: string }> = [];
  for (const sealed of SEALED_COLUMNS) {
    const { rows } = await database.pool.query<{ id: string; key_id: string }>(
      `SELECT id, ${keyIdOf(sealed.column)} AS key_id FROM ${sealed.table}
        WHERE ${sealed.filter} AND ${keyIdOf(sealed.column)} <> $1 ORDER BY id`,
      [currentKeyId],
    );
    for (const row of rows) found.push({ table: sealed.table, id: row.id, keyId: row.key_id });
  }
  return found;
}
