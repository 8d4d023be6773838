import type { PoolClient } from "pg";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import type { AppContext } from "../context.js";
import { inTransaction } from "../db/client.js";
import { ORG_CHANGED_CHANNEL } from "../db/org-changed-channel.js";
import { NotFoundError } from "../errors.js";
import type { ApiKeySummary } from "../domain/api-key.js";
import type { OrgChanges, OrgOverview, Plan } from "../domain/org.js";
import { cursorCodec, prefixedId, timestampKey, type Page } from "../shared/cursor.js";
import { listApiKeys, type RevokedApiKey } from "../auth/api-keys.js";

/**
 * Operator staff's controls over organizations (docs/api-decisions.md "Operator controls"): the list, a plan
 * change, suspension and resumption, and revoking any key. Each action is one function here, so
 * whatever must follow an action (an audit row) is added in one place.
 *
 * A change reaches every relayer process at once: the statement that makes it also sends
 * `ORG_CHANGED_CHANNEL` (delivered at commit), on which each process forgets the org's cached
 * keys, so the next request of any key of the org reads the new plan or suspension. Should a
 * notification be lost with a dropped connection, the cache's 2 s lifetime bounds the delay.
 */

/** Not found answer for an unknown org id (and for a malformed one: it cannot exist). */
const ORG_NOT_FOUND = "Organization not found";

/** A page of `listOrgs`. */
export interface OrgListQuery {
  /** Case-insensitive substring of the name. */
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

interface OrgRow {
  id: string;
  name: string;
  plan: string;
  scopes: string[];
  created_at: string;
  created_key: string;
  suspended_at: string | null;
  wallet_address: string | null;
  active_keys: number;
  wallet_id: string | null;
}

const ORG_COLUMNS = `o.id, o.name, o.plan, o.scopes,
  to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_key,
  to_char(o.suspended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS suspended_at,
  w.address AS wallet_address, w.id AS wallet_id,
  (SELECT count(*)::int FROM api_keys k
    WHERE k.org_id = o.id AND k.revoked_at IS NULL
      AND (k.expires_at IS NULL OR k.expires_at > now())) AS active_keys`;

function overviewOf(row: OrgRow): OrgOverview {
  return {
    orgId: row.id,
    orgName: row.name,
    plan: row.plan,
    scopes: row.scopes,
    suspended: row.suspended_at !== null,
    suspendedAt: row.suspended_at,
    walletAddress: row.wallet_address,
    keyCount: row.active_keys,
    createdAt: row.created_at,
  };
}

/**
 * Cursor of the next page: base64url of `{"t":"<created_at, µs>","i":"<id>"}`. The time is
 * checked for its shape only, as it always was (a forged impossible date reaches PostgreSQL).
 */
const orgCursor = cursorCodec({ t: timestampKey, i: prefixedId("org") });

/** `%`, `_` and `\` matched literally in a LIKE pattern. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Organizations, oldest first, with their plan, suspension, wallet and number of active keys
 * (unrevoked, unexpired). `q` keeps those whose name contains it, ignoring case.
 *
 * @throws ValidationError `Invalid cursor`
 * @example
 * await listOrgs(ctx, { q: "acme", limit: 20 });
 */
export async function listOrgs(ctx: AppContext, query: OrgListQuery): Promise<Page<OrgOverview>> {
  const values: unknown[] = [];
  const where: string[] = [];
  if (query.q !== undefined && query.q !== "") {
    values.push(`%${likeLiteral(query.q)}%`);
    where.push(`o.name ILIKE $${values.length}`);
  }
  if (query.cursor !== undefined) {
    const { t, i } = orgCursor.decode(query.cursor);
    values.push(t, i);
    where.push(`(o.created_at, o.id) > ($${values.length - 1}::timestamptz, $${values.length})`);
  }
  values.push(query.limit + 1);
  const { rows } = await ctx.database.pool.query<OrgRow>(
    `SELECT ${ORG_COLUMNS}
       FROM orgs o LEFT JOIN wallets w ON w.org_id = o.id
      ${where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`}
      ORDER BY o.created_at, o.id
      LIMIT $${values.length}`,
    values,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    data: page.map(overviewOf),
    nextCursor:
      rows.length > query.limit && last !== undefined
        ? orgCursor.encode({ t: last.created_key, i: last.id })
        : null,
  };
}

async function lockedOrg(client: PoolClient, orgId: string): Promise<OrgRow> {
  // `FOR UPDATE OF o`: serialises operator changes to one org (and key creation, which locks it).
  const { rows } = await client.query<OrgRow>(
    `SELECT ${ORG_COLUMNS} FROM orgs o LEFT JOIN wallets w ON w.org_id = o.id
      WHERE o.id = $1 FOR UPDATE OF o`,
    [orgId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFoundError(ORG_NOT_FOUND, { details: { orgId } });
  return row;
}

/** The organization as `listOrgs` shows it. @throws NotFoundError `Organization not found` */
export async function getOrg(ctx: AppContext, orgId: string): Promise<OrgOverview> {
  const { rows } = await ctx.database.pool.query<OrgRow>(
    `SELECT ${ORG_COLUMNS} FROM orgs o LEFT JOIN wallets w ON w.org_id = o.id WHERE o.id = $1`,
    [orgId],
  );
  const row = rows[0];
  if (row === undefined) throw new NotFoundError(ORG_NOT_FOUND, { details: { orgId } });
  return overviewOf(row);
}

/** Result of `updateOrg`: the organization after the change, and what changed (from → to). */
export interface UpdatedOrg {
  org: OrgOverview;
  changes: OrgChanges;
}

/**
 * Operator staff change an organization's plan and/or suspend or resume it, in one database
 * transaction. Setting what is already set changes nothing (a second suspension keeps the first
 * `suspendedAt`).
 *
 * - A new plan's limits apply from the org's next request, in every process.
 * - A suspended org's keys and console sessions answer 403 `Organization suspended`. Its queued
 *   writes are held: the transaction engine sends no queued write of a suspended org (it
 *   takes no nonce; `engine/tx-store.ts` `notHeld`, and `markSent` refuses a round begun before
 *   the suspension). Writes already sent are followed to the end. Its webhooks and their
 *   backlog are left alone: deliveries carry on.
 * - On resumption the engine is woken for the org's wallet, and its held writes are sent.
 *
 * @throws NotFoundError `Organization not found`
 */
export async function updateOrg(
  ctx: AppContext,
  orgId: string,
  input: { plan?: Plan | undefined; suspended?: boolean | undefined },
  origin: AuditOrigin,
): Promise<UpdatedOrg> {
  const { changes, walletId } = await inTransaction(ctx.database, async (client) => {
    const before = await lockedOrg(client, orgId);
    const changes: OrgChanges = {};
    if (input.plan !== undefined && input.plan !== before.plan) {
      await client.query("UPDATE orgs SET plan = $2 WHERE id = $1", [orgId, input.plan]);
      changes.plan = { from: before.plan, to: input.plan };
    }
    const wasSuspended = before.suspended_at !== null;
    if (input.suspended !== undefined && input.suspended !== wasSuspended) {
      await client.query(
        `UPDATE orgs SET suspended_at = ${input.suspended ? "now()" : "NULL"} WHERE id = $1`,
        [orgId],
      );
      changes.suspended = { from: wasSuspended, to: input.suspended };
    }
    if (Object.keys(changes).length > 0)
      await client.query("SELECT pg_notify($1, $2)", [ORG_CHANGED_CHANNEL, orgId]);
    // The audit rows commit with the change (appended last: the chain head is the last lock).
    if (changes.plan !== undefined)
      await appendAudit(client, origin, {
        orgId,
        action: AUDIT_ACTIONS.orgPlanChanged,
        target: orgId,
        changes: { plan: changes.plan },
      });
    if (changes.suspended !== undefined)
      await appendAudit(client, origin, {
        orgId,
        action: changes.suspended.to ? AUDIT_ACTIONS.orgSuspended : AUDIT_ACTIONS.orgResumed,
        target: orgId,
        changes: { suspended: changes.suspended },
      });
    return { changes, walletId: before.wallet_id };
  });
  ctx.apiKeys.forgetOrg(orgId);
  // The engine that leases the wallet, here or in another process, looks at it again: its held
  // writes are sendable now.
  if (changes.suspended?.to === false && walletId !== null) ctx.engine.submit(walletId);
  if (Object.keys(changes).length > 0)
    ctx.logger.info({ orgId, changes }, "organization changed by operator");
  return { org: await getOrg(ctx, orgId), changes };
}

/**
 * Every key of an organization (revoked and expired ones included), for operator staff.
 *
 * @throws NotFoundError `Organization not found`
 */
export async function listOrgKeys(ctx: AppContext, orgId: string): Promise<ApiKeySummary[]> {
  await getOrg(ctx, orgId);
  return listApiKeys(ctx, orgId);
}

/**
 * Operator staff revoke any key of an organization, its last active one included (a leaked key
 * must stop working even if the org is then locked out). Revoking a revoked key returns its
 * original `revokedAt`. Every process forgets the key at once (`ORG_CHANGED_CHANNEL`).
 *
 * @throws NotFoundError `Organization not found`; `API key not found` when the key is not one
 *   of this organization's
 */
export async function revokeOrgKey(
  ctx: AppContext,
  orgId: string,
  keyId: string,
  origin: AuditOrigin,
): Promise<RevokedApiKey> {
  const result = await inTransaction(ctx.database, async (client) => {
    await lockedOrg(client, orgId);
    const { rows } = await client.query<{
      revoked_at: Date | null;
      newly: boolean;
      found: boolean;
    }>(
      `WITH target AS (SELECT id, revoked_at FROM api_keys WHERE id = $1 AND org_id = $2 FOR UPDATE),
       revoked AS (UPDATE api_keys SET revoked_at = now()
                    WHERE id IN (SELECT id FROM target WHERE revoked_at IS NULL) RETURNING revoked_at)
       SELECT coalesce((SELECT revoked_at FROM revoked), (SELECT revoked_at FROM target)) AS revoked_at,
              EXISTS (SELECT 1 FROM revoked) AS newly,
              EXISTS (SELECT 1 FROM target) AS found`,
      [keyId, orgId],
    );
    const row = rows[0];
    if (row?.found !== true || row.revoked_at === null)
      throw new NotFoundError("API key not found", { details: { orgId, keyId } });
    if (row.newly) {
      await client.query("SELECT pg_notify($1, $2)", [ORG_CHANGED_CHANNEL, orgId]);
      await appendAudit(client, origin, {
        orgId,
        action: AUDIT_ACTIONS.apiKeyRevoked,
        target: keyId,
        changes: { revokedAt: row.revoked_at.toISOString() },
      });
    }
    return {
      keyId,
      revoked: true as const,
      revokedAt: row.revoked_at.toISOString(),
      newly: row.newly,
    };
  });
  ctx.apiKeys.forget(keyId);
  if (result.newly) ctx.logger.info({ orgId, keyId }, "api key revoked by operator");
  return { keyId: result.keyId, revoked: result.revoked, revokedAt: result.revokedAt };
}
