import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type pg from "pg";
import type { Db, DbTransaction } from "../db/client.js";
import {
  AUDIT_ACTION_PATTERN,
  SYSTEM_ACTOR,
  type AuditAction,
  type AuditChanges,
  type AuditValue,
} from "../domain/audit.js";
import { BaseError } from "../errors.js";
import { auditHash, type AuditRowContent } from "./audit-hash.js";

/**
 * The one writer of the audit log. Every management and operator action calls `appendAudit`
 * once, with who acted (`AuditOrigin`) and what they did (`AuditEntry`):
 *
 * ```ts
 * await db.transaction(async (tx) => {
 *   await tx.update(orgs).set({ plan }).where(eq(orgs.id, orgId));
 *   await appendAudit(tx, origin, {
 *     orgId, action: AUDIT_ACTIONS.orgPlanChanged, target: orgId,
 *     changes: { plan: { from: "free", to: plan } },
 *   });
 * });
 * ```
 *
 * The chain: each row's id is the head's last id + 1 and its hash covers the previous row's
 * hash (`audit-hash.ts`). The head (`audit_chain_head`, one row) is locked by the append's first
 * statement and stays locked until the caller's transaction ends, so appenders in every relayer
 * process queue on it and the chain never forks (the unique `prev_hash` index would refuse a fork
 * anyway). Append last in a transaction, just before it commits: the head is the last lock taken,
 * so no lock-order cycle is possible and the queue is held only for the commit.
 *
 * Same transaction as the action: pass the action's transaction (drizzle `tx`, or a `pg`
 * client inside BEGIN) and the row commits or rolls back with the action, so no action is ever
 * left unaudited and no row records an action that did not happen. Given the database itself
 * (`ctx.database.db`), the append runs in a transaction of its own: for actions that are not a
 * database write (a rescue sent on chain: an attempt row committed before its broadcast and an
 * outcome row after, `operator-act-audit.ts`).
 */

/** Who acted, and where from: from the request (`http/audit-origin.ts`) or a CLI. */
export interface AuditOrigin {
  /** An API key id (`key_...`; a console session acts as its key), `admin` or `system`. */
  actor: string;
  /** The request's `X-Request-Id`; null outside a request. */
  requestId: string | null;
  /** The IP address the request came from; null outside a request. */
  sourceAddress: string | null;
}

/** The origin of an action taken by the service itself or a command-line tool. */
export const SYSTEM_ORIGIN: AuditOrigin = Object.freeze({
  actor: SYSTEM_ACTOR,
  requestId: null,
  sourceAddress: null,
});

/** What was done. */
export interface AuditEntry {
  /** The organization concerned; null for a service-wide act (an operator's asset type). */
  orgId: string | null;
  action: AuditAction;
  /** Id of what was acted on: `key_...`, `wh_...`, `org_...`, `token:12`, `asset-type:Art`. */
  target: string | null;
  /** The changed fields: never a secret (checked: `assertNoSecret`). */
  changes?: AuditChanges;
}

/** An appended row. */
export interface AppendedAudit extends AuditRowContent {
  hash: string;
}

/** The transaction (or database) an append runs in. */
export type AuditExecutor = Db | DbTransaction | pg.PoolClient;

/** An entry the writer refuses: a malformed action, a secret or a value JSON cannot keep. */
export class AuditEntryError extends BaseError {
  override name = "AuditEntryError";
}

/** Field names that hold credentials: such a field is never written, whatever its value. */
const SECRET_FIELD =
  /(secret|password|passphrase|private_?key|mnemonic|^pin$|^api_?key$|key_?hash|encrypted_?key|token$)/i;
/** Prefixes of the service's own credential strings (API keys, webhook secrets, admin token). */
const SECRET_VALUE = /(rwa_live_|rwa_test_|whsec_|ent_admin_)/;

/**
 * Refuses changes that carry a secret: a field named like one (`secret`, `apiKey`,
 * `privateKey`, `adminToken`, ...), or a string holding an API key, a webhook secret or the
 * admin token. Also refuses what the `jsonb` column cannot give back unchanged (non-finite
 * numbers, values that are not JSON), so the verifier recomputes the same hash.
 *
 * @throws AuditEntryError naming the field
 */
export function assertNoSecret(value: AuditValue, path = "changes"): void {
  if (typeof value === "string") {
    if (SECRET_VALUE.test(value))
      throw new AuditEntryError(`Audit entry ${path} holds a credential`);
    return;
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new AuditEntryError(`Audit entry ${path} is not finite`);
    return;
  }
  if (value === null || typeof value === "boolean") return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertNoSecret(item, `${path}.${index}`));
    return;
  }
  if (typeof value !== "object") throw new AuditEntryError(`Audit entry ${path} is not JSON`);
  for (const [field, item] of Object.entries(value)) {
    if (SECRET_FIELD.test(field))
      throw new AuditEntryError(`Audit entry ${path}.${field} names a secret`);
    assertNoSecret(item, `${path}.${field}`);
  }
}

/** What `jsonb` refuses in a string: a lone UTF-16 surrogate, or NUL. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what must be found
const UNSTORABLE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\u0000/g;

/**
 * `changes` as the `jsonb` column gives it back: without `undefined` fields (JSON drops them)
 * and with each lone UTF-16 surrogate (as PostgreSQL's text columns store it) and NUL replaced by
 * U+FFFD (`jsonb` refuses both), so the hash covers exactly what is stored.
 */
function normalized(value: AuditValue): AuditValue {
  if (typeof value === "string") return value.replace(UNSTORABLE, "\uFFFD");
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => normalized(item ?? null));
  const out: AuditChanges = {};
  for (const [field, item] of Object.entries(value)) {
    if (item !== undefined) out[field.replace(UNSTORABLE, "\uFFFD")] = normalized(item);
  }
  return out;
}

const dialect = new PgDialect();

/** Runs `work` in a savepoint of the caller's transaction, or in a transaction of its own. */
async function inSavepoint<T>(
  executor: AuditExecutor,
  work: (run: (query: SQL) => Promise<Record<string, unknown>[]>) => Promise<T>,
): Promise<T> {
  if (!("execute" in executor)) {
    // A pg client: the caller's BEGIN is required (SAVEPOINT fails outside a transaction, so a
    // forgotten BEGIN is an error, not an unlocked head).
    const client = executor;
    await client.query("SAVEPOINT audit_append");
    try {
      const result = await work(async (query) => {
        const { sql: text, params } = dialect.sqlToQuery(query);
        return (await client.query<Record<string, unknown>>(text, params)).rows;
      });
      await client.query("RELEASE SAVEPOINT audit_append");
      return result;
    } catch (error) {
      await client.query("ROLLBACK TO SAVEPOINT audit_append").catch(() => undefined);
      throw error;
    }
  }
  // Drizzle: on the database a transaction, inside one a savepoint.
  const transactional = executor as {
    transaction<R>(fn: (tx: { execute(query: SQL): Promise<unknown> }) => Promise<R>): Promise<R>;
  };
  return transactional.transaction((tx) =>
    work(async (query) => ((await tx.execute(query)) as { rows: Record<string, unknown>[] }).rows),
  );
}

/**
 * Appends one row to the audit log, in `executor`'s transaction (see the module comment).
 *
 * @param executor the action's transaction (drizzle `tx` or a `pg` client after BEGIN), or the
 *   database (`ctx.database.db`) for an action that is not a database write
 * @returns the row as stored, hash included
 * @throws AuditEntryError for a malformed action name or changes holding a secret
 */
export async function appendAudit(
  executor: AuditExecutor,
  origin: AuditOrigin,
  entry: AuditEntry,
): Promise<AppendedAudit> {
  if (entry.action.length > 64 || !AUDIT_ACTION_PATTERN.test(entry.action))
    throw new AuditEntryError(`Audit action ${JSON.stringify(entry.action)} is malformed`);
  const changes = normalized(entry.changes ?? {}) as AuditChanges;
  const target = entry.target === null ? null : (normalized(entry.target) as string);
  assertNoSecret(changes);
  assertNoSecret(target, "target");
  return inSavepoint(executor, async (run) => {
    // Takes the head's lock (held until the caller's transaction ends) and the row's id and time;
    // `clock_timestamp()` here is read after the lock is granted, so times follow ids.
    const [head] = await run(sql`
      UPDATE audit_chain_head SET last_id = last_id + 1 WHERE id = 1
      RETURNING last_id::text AS id, last_hash AS prev_hash,
        to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`);
    if (head === undefined) throw new Error("audit_chain_head has no row (migration 0007)");
    const content: AuditRowContent = {
      id: String(head.id),
      at: String(head.at),
      actor: origin.actor,
      orgId: entry.orgId,
      action: entry.action,
      target,
      requestId: origin.requestId,
      sourceAddress: origin.sourceAddress,
      changes,
      prevHash: String(head.prev_hash),
    };
    const hash = auditHash(content);
    await run(sql`
      WITH appended AS (
        INSERT INTO audit_log
          (id, at, actor, org_id, action, target, request_id, source_address, changes, prev_hash, hash)
        VALUES (${content.id}::bigint, ${content.at}::timestamptz, ${content.actor},
          ${content.orgId}, ${content.action}, ${content.target}, ${content.requestId},
          ${content.sourceAddress}, ${JSON.stringify(changes)}::jsonb, ${content.prevHash}, ${hash})
      )
      UPDATE audit_chain_head SET last_hash = ${hash} WHERE id = 1`);
    return { ...content, hash };
  });
}
