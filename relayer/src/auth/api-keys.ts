import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { ORG_CHANGED_CHANNEL } from "../db/org-changed-channel.js";
import { apiKeys, orgs } from "../db/schema/index.js";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors.js";
import { canonicalRanges } from "./allowed-ips.js";
import { generateApiKey } from "./api-key-format.js";
import { isScopeSubset } from "./scopes.js";
import type { ApiKeyPrincipal } from "./api-key-cache.js";
import { newId } from "../shared/ids.js";
import type { ApiKeySummary, CreatedApiKey } from "../domain/api-key.js";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";

/** Result of a revocation. */
export interface RevokedApiKey {
  keyId: string;
  revoked: true;
  revokedAt: string;
}

/** At most this many active keys per organization. */
export const MAX_ACTIVE_KEYS_PER_ORG = 50;

type KeyRow = typeof apiKeys.$inferSelect;

function summarize(row: KeyRow): ApiKeySummary {
  return {
    keyId: row.id,
    label: row.label,
    scopes: row.scopes,
    prefix: row.keyPrefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    allowedIps: row.allowedIps,
  };
}

/** Every key of the organization, oldest first, revoked ones included (with `revokedAt`). */
export async function listApiKeys(ctx: AppContext, orgId: string): Promise<ApiKeySummary[]> {
  const rows = await ctx.database.db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.orgId, orgId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  return rows.map(summarize);
}

/**
 * Creates an additional key for the caller's organization. Its scopes must be a subset of the
 * calling key's scopes (after `write:all` expansion), so a key can never mint a stronger key.
 * With `expiresAt` (validated to lie in the future) the key answers 401 `API key expired` after it.
 * The `api_key.created` audit row (label and scopes, never the key) commits with it.
 *
 * @throws ForbiddenError `Insufficient scope` when asking for scopes the caller lacks;
 *   ConflictError when the org already has `MAX_ACTIVE_KEYS_PER_ORG` active keys
 */
export async function createApiKey(
  ctx: AppContext,
  caller: ApiKeyPrincipal,
  input: {
    scopes: string[];
    label?: string | undefined;
    expiresAt?: string | undefined;
    allowedIps?: string[] | undefined;
  },
  origin: AuditOrigin,
): Promise<CreatedApiKey> {
  const scopes = [...new Set(input.scopes)];
  if (!isScopeSubset(scopes, caller.scopes)) {
    throw new ForbiddenError("Insufficient scope", {
      details: { reason: "requested scopes exceed the calling key's" },
    });
  }
  let allowedIps: string[] | null = null;
  if (input.allowedIps !== undefined) {
    const ranges = canonicalRanges(input.allowedIps);
    if (!Array.isArray(ranges))
      throw new ValidationError(
        `Invalid field: allowedIps.${ranges.invalid} (not an IP address or CIDR range)`,
      );
    allowedIps = ranges;
  }
  const generated = generateApiKey();
  const keyId = newId("key");
  const row = await ctx.database.db.transaction(async (tx) => {
    // Lock the org row so concurrent creations cannot overshoot the cap.
    await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, caller.orgId)).for("update");
    const [{ active } = { active: 0 }] = await tx
      .select({ active: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, caller.orgId), isNull(apiKeys.revokedAt)));
    if (active >= MAX_ACTIVE_KEYS_PER_ORG) {
      throw new ConflictError(
        `Key limit reached (${MAX_ACTIVE_KEYS_PER_ORG} active keys per organization)`,
      );
    }
    const inserted = await tx
      .insert(apiKeys)
      .values({
        id: keyId,
        orgId: caller.orgId,
        keyHash: generated.hash,
        keyPrefix: generated.prefix,
        label: input.label ?? null,
        scopes,
        expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt),
        allowedIps,
      })
      .returning();
    await appendAudit(tx, origin, {
      orgId: caller.orgId,
      action: AUDIT_ACTIONS.apiKeyCreated,
      target: keyId,
      changes: {
        label: input.label ?? null,
        scopes,
        ...(allowedIps === null ? {} : { allowedIps }),
      },
    });
    return inserted[0];
  });
  if (row === undefined) throw new Error("api key insert returned no row");
  ctx.logger.info({ orgId: caller.orgId, keyId, byKeyId: caller.keyId, scopes }, "api key created");
  return { apiKey: generated.key, ...summarize(row) };
}

/**
 * Revokes one of the caller's organization's keys; it stops working on the next request.
 *
 * Rules: a key of another organization is reported as not found (no existence leak); the
 * caller may revoke itself or any key whose scopes are within its own (a read-only key cannot
 * revoke a write key); the organization's last active key cannot be revoked (the org would be
 * locked out until operator staff step in; an expired key does not count). Revoking an already
 * revoked key returns its original `revokedAt` (idempotent). A revocation appends its
 * `api_key.revoked` audit row in the same transaction; an idempotent repeat appends none.
 *
 * @throws NotFoundError `API key not found`; ForbiddenError `Insufficient scope`;
 *   ConflictError `Cannot revoke the last active key`
 */
export async function revokeApiKey(
  ctx: AppContext,
  caller: ApiKeyPrincipal,
  keyId: string,
  origin: AuditOrigin,
): Promise<RevokedApiKey> {
  const result = await ctx.database.db.transaction(async (tx) => {
    await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, caller.orgId)).for("update");
    const rows = await tx
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.orgId, caller.orgId)))
      .limit(1);
    const target = rows[0];
    if (target === undefined) throw new NotFoundError("API key not found");
    if (target.revokedAt !== null)
      return { keyId, revoked: true as const, revokedAt: target.revokedAt.toISOString() };
    if (target.id !== caller.keyId && !isScopeSubset(target.scopes, caller.scopes)) {
      throw new ForbiddenError("Insufficient scope", {
        details: { reason: "target key has scopes the caller lacks" },
      });
    }
    const [{ others } = { others: 0 }] = await tx
      .select({ others: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.orgId, caller.orgId),
          isNull(apiKeys.revokedAt),
          ne(apiKeys.id, keyId),
          // An expired key cannot stand in for the one revoked: it would lock the org out.
          sql`(${apiKeys.expiresAt} IS NULL OR ${apiKeys.expiresAt} > now())`,
        ),
      );
    if (others === 0) throw new ConflictError("Cannot revoke the last active key");
    const updated = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(eq(apiKeys.id, keyId))
      .returning({ revokedAt: apiKeys.revokedAt });
    // Other processes forget the org's cached keys now rather than within the cache's 2 s.
    await tx.execute(sql`SELECT pg_notify(${ORG_CHANGED_CHANNEL}, ${caller.orgId})`);
    const revokedAt = updated[0]?.revokedAt ?? new Date();
    await appendAudit(tx, origin, {
      orgId: caller.orgId,
      action: AUDIT_ACTIONS.apiKeyRevoked,
      target: keyId,
      changes: { revokedAt: revokedAt.toISOString() },
    });
    return { keyId, revoked: true as const, revokedAt: revokedAt.toISOString() };
  });
  ctx.apiKeys.forget(keyId);
  ctx.logger.info({ orgId: caller.orgId, keyId, byKeyId: caller.keyId }, "api key revoked");
  return result;
}
