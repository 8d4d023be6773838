import { eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { Batcher } from "../db/batcher.js";
import { retryOnDeadlock } from "../db/client.js";
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
  return ctx.apiKeys.resolve(hash, (background) => lookUps(ctx, background).add(hash));
}

type KeyLookup = { principal: ApiKeyPrincipal; expiresAt: number | null };

/**
 * Each app's key look-ups, sent as one statement (`lookUpApiKeys`): those a request waits for,
 * the look-ups of one event-loop turn; background refreshes, those of `REFRESH_LINGER_MS` (a
 * hundred keys in steady use refresh about once a second each: a few statements a second, not
 * a hundred).
 */
const batchers = new WeakMap<AppContext, Record<"now" | "later", Batcher<string, KeyLookup>>>();

/** How long a background refresh waits for others to share its statement. */
const REFRESH_LINGER_MS = 200;

function lookUps(ctx: AppContext, background: boolean): Batcher<string, KeyLookup> {
  let pair = batchers.get(ctx);
  if (pair === undefined) {
    const run = (hashes: readonly string[]) => lookUpApiKeys(ctx, hashes);
    pair = { now: new Batcher(run), later: new Batcher(run, { lingerMs: REFRESH_LINGER_MS }) };
    batchers.set(ctx, pair);
  }
  return background ? pair.later : pair.now;
}

/**
 * The keys of `hashes` in one statement (when a hundred organizations' entries expire together,
 * one round trip, not a hundred): each one's principal, or the error its request answers. Keys
 * whose `last_used_at` is older than `LAST_USED_RESOLUTION_MS` get it set, in one statement too.
 */
async function lookUpApiKeys(
  ctx: AppContext,
  hashes: readonly string[],
): Promise<Array<KeyLookup | Error>> {
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
    .where(inArray(apiKeys.keyHash, [...new Set(hashes)]));
  const byHash = new Map(rows.map((row) => [row.keyHash, row]));
  const now = Date.now();
  const used: string[] = [];
  const answers = hashes.map((hash): KeyLookup | Error => {
    const row = byHash.get(hash);
    if (row === undefined || !hashesEqual(row.keyHash, hash))
      return new UnauthorizedError({ details: { reason: "unknown key" } });
    if (row.revokedAt !== null)
      return new UnauthorizedError({ details: { reason: "revoked key", keyId: row.keyId } });
    if (row.expiresAt !== null && row.expiresAt.getTime() <= now)
      return new ApiKeyExpiredError({ details: { keyId: row.keyId } });
    if (row.suspendedAt !== null)
      return new OrgSuspendedError({ details: { orgId: row.orgId, keyId: row.keyId } });
    if (row.lastUsedAt === null || now - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS)
      used.push(row.keyId);
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
  });
  // Several processes may stamp overlapping keys in another order: a deadlock is retried.
  if (used.length > 0)
    await retryOnDeadlock(() =>
      ctx.database.db
        .update(apiKeys)
        .set({ lastUsedAt: sql`now()` })
        .where(inArray(apiKeys.id, [...new Set(used)])),
    );
  return answers;
}
