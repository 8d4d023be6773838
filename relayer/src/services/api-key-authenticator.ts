import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import type { ApiKeyPrincipal } from "./api-key-cache.js";
import { apiKeys, orgs } from "../db/schema/index.js";
import { ApiKeyExpiredError, OrgSuspendedError, UnauthorizedError } from "../errors.js";
import { API_KEY_PATTERN, hashApiKey, hashesEqual } from "../auth/api-key-format.js";
import { expandScopes } from "../auth/scopes.js";

/** `last_used_at` is written at most this often per key, to keep reads cheap. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves an API key string to its organization and scopes.
 *
 * The key is hashed (SHA-256) and looked up by hash; the stored hash is then compared in
 * constant time. A successful lookup is reused for `API_KEY_CACHE_TTL_MS` (2 s) by this
 * process: a key revoked elsewhere stops working here within that bound, and at once in the
 * process that revoked it.
 *
 * An expired key is 401 `API key expired`; a valid key of a suspended organization is 403
 * `Organization suspended` (neither is cached, so each such request reads the database, and a
 * resumed organization's keys work on their next request).
 *
 * @throws UnauthorizedError for a malformed, unknown or revoked key; ApiKeyExpiredError;
 *   OrgSuspendedError
 */
export async function authenticateApiKey(ctx: AppContext, key: string): Promise<ApiKeyPrincipal> {
  if (!API_KEY_PATTERN.test(key))
    throw new UnauthorizedError({ details: { reason: "malformed key" } });
  const hash = hashApiKey(key);
  return ctx.apiKeys.resolve(hash, () => lookUpApiKey(ctx, hash));
}

async function lookUpApiKey(
  ctx: AppContext,
  hash: string,
): Promise<{ principal: ApiKeyPrincipal; expiresAt: number | null }> {
  const rows = await ctx.database.db
    .select({
      keyId: apiKeys.id,
      orgId: apiKeys.orgId,
      keyHash: apiKeys.keyHash,
      scopes: apiKeys.scopes,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
      expiresAt: apiKeys.expiresAt,
      plan: orgs.plan,
      suspendedAt: orgs.suspendedAt,
    })
    .from(apiKeys)
    .innerJoin(orgs, eq(orgs.id, apiKeys.orgId))
    .where(eq(apiKeys.keyHash, hash))
    .limit(1);
  const row = rows[0];
  if (row === undefined || !hashesEqual(row.keyHash, hash)) {
    throw new UnauthorizedError({ details: { reason: "unknown key" } });
  }
  if (row.revokedAt !== null)
    throw new UnauthorizedError({ details: { reason: "revoked key", keyId: row.keyId } });
  if (row.expiresAt !== null && row.expiresAt.getTime() <= Date.now())
    throw new ApiKeyExpiredError({ details: { keyId: row.keyId } });
  if (row.suspendedAt !== null)
    throw new OrgSuspendedError({ details: { orgId: row.orgId, keyId: row.keyId } });
  if (row.lastUsedAt === null || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await ctx.database.db
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(eq(apiKeys.id, row.keyId));
  }
  return {
    principal: {
      orgId: row.orgId,
      keyId: row.keyId,
      scopes: row.scopes,
      grantedScopes: expandScopes(row.scopes),
      plan: row.plan,
    },
    expiresAt: row.expiresAt?.getTime() ?? null,
  };
}
