import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { apiKeys, orgs } from "../db/schema/index.js";
import { UnauthorizedError } from "../errors.js";
import { API_KEY_PATTERN, hashApiKey, hashesEqual } from "../auth/api-key-format.js";
import { expandScopes } from "../auth/scopes.js";

/** Who is calling, as established from a valid, unrevoked API key. */
export interface ApiKeyPrincipal {
  orgId: string;
  keyId: string;
  /** The key's scopes as stored (may contain `write:all`). */
  scopes: string[];
  /** The concrete scopes granted (aliases expanded). */
  grantedScopes: ReadonlySet<string>;
  plan: string;
}

/** `last_used_at` is written at most this often per key, to keep reads cheap. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves an API key string to its organization and scopes.
 *
 * The key is hashed (SHA-256) and looked up by hash; the stored hash is then compared in
 * constant time. There is no cache, so a revoked key fails on the very next request.
 *
 * @throws UnauthorizedError for a malformed, unknown or revoked key
 */
export async function authenticateApiKey(ctx: AppContext, key: string): Promise<ApiKeyPrincipal> {
  if (!API_KEY_PATTERN.test(key))
    throw new UnauthorizedError({ details: { reason: "malformed key" } });
  const hash = hashApiKey(key);
  const rows = await ctx.database.db
    .select({
      keyId: apiKeys.id,
      orgId: apiKeys.orgId,
      keyHash: apiKeys.keyHash,
      scopes: apiKeys.scopes,
      revokedAt: apiKeys.revokedAt,
      lastUsedAt: apiKeys.lastUsedAt,
      plan: orgs.plan,
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
  if (row.lastUsedAt === null || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await ctx.database.db
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(eq(apiKeys.id, row.keyId));
  }
  return {
    orgId: row.orgId,
    keyId: row.keyId,
    scopes: row.scopes,
    grantedScopes: expandScopes(row.scopes),
    plan: row.plan,
  };
}
