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
 * How long a process reuses a successful key lookup: the bound on how long a key revoked by
 * another relayer process keeps working here (README, "Authentication"). The process that
 * revokes a key forgets it at once.
 */
export const API_KEY_CACHE_TTL_MS = 2_000;

/** At most this many keys are remembered per process; when full, the cache starts over. */
const API_KEY_CACHE_MAX = 10_000;

/**
 * Successful lookups by key hash, in this process (`ctx.apiKeys`). Unknown and revoked keys are
 * never kept; an entry lives `API_KEY_CACHE_TTL_MS`.
 */
export class ApiKeyCache {
  readonly #byHash = new Map<string, { principal: ApiKeyPrincipal; until: number }>();

  /** The principal of a key hash looked up less than the TTL ago, if any. */
  get(hash: string): ApiKeyPrincipal | undefined {
    const known = this.#byHash.get(hash);
    return known !== undefined && known.until > Date.now() ? known.principal : undefined;
  }

  remember(hash: string, principal: ApiKeyPrincipal): void {
    if (this.#byHash.size >= API_KEY_CACHE_MAX) this.#byHash.clear();
    this.#byHash.set(hash, { principal, until: Date.now() + API_KEY_CACHE_TTL_MS });
  }

  /** Forgets a key (on revocation), so its next request is checked in the database. */
  forget(keyId: string): void {
    for (const [hash, entry] of this.#byHash)
      if (entry.principal.keyId === keyId) this.#byHash.delete(hash);
  }
}

/**
 * Resolves an API key string to its organization and scopes.
 *
 * The key is hashed (SHA-256) and looked up by hash; the stored hash is then compared in
 * constant time. A successful lookup is reused for `API_KEY_CACHE_TTL_MS` (2 s) by this
 * process: a key revoked elsewhere stops working here within that bound, and at once in the
 * process that revoked it.
 *
 * @throws UnauthorizedError for a malformed, unknown or revoked key
 */
export async function authenticateApiKey(ctx: AppContext, key: string): Promise<ApiKeyPrincipal> {
  if (!API_KEY_PATTERN.test(key))
    throw new UnauthorizedError({ details: { reason: "malformed key" } });
  const hash = hashApiKey(key);
  const known = ctx.apiKeys.get(hash);
  if (known !== undefined) return known;
  const principal = await lookUpApiKey(ctx, hash);
  ctx.apiKeys.remember(hash, principal);
  return principal;
}

async function lookUpApiKey(ctx: AppContext, hash: string): Promise<ApiKeyPrincipal> {
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
