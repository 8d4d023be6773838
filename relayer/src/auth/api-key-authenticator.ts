import type { AppContext } from "../context.js";
import { Batcher } from "../db/batcher.js";
import { retryOnDeadlock } from "../db/client.js";
import type { ApiKeyPrincipal } from "./api-key-cache.js";
import { ApiKeyExpiredError, OrgSuspendedError, UnauthorizedError } from "../errors.js";
import { API_KEY_PATTERN, hashApiKey, hashesEqual } from "./api-key-format.js";
import { parseRanges } from "./allowed-ips.js";
import { expandScopes } from "./scopes.js";
import { prefetchRequest } from "../limits/rate-limiter.js";

/** `last_used_at` is written at most this often per key, to keep reads cheap. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves an API key string to its organization and scopes.
 *
 * The key is hashed (SHA-256) and looked up by hash; the stored hash is then compared in
 * constant time. A successful lookup is reused for `API_KEY_CACHE_TTL_MS` (2 s) by this
 * process: a key revoked elsewhere stops working here within that bound, and at once in the
 * process that revoked it. A key back after a quiet spell (its entry expired) has its rate-limit
 * lease taken beside its lookup, on the expired entry's word (`ApiKeyCache.resolve`).
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
  return ctx.apiKeys.resolve(
    hash,
    (background) => lookUps(ctx, background).add(hash),
    (hint) => prefetchRequest(ctx, hint),
  );
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

interface KeyRow {
  key_id: string;
  org_id: string;
  key_hash: string;
  scopes: string[];
  revoked_at: Date | null;
  expires_at: Date | null;
  plan: string;
  suspended_at: Date | null;
  allowed_ips: string[] | null;
}

/**
 * The keys of `hashes` in one statement (when a hundred organizations' entries expire together,
 * one round trip, not a hundred): each one's principal, or the error its request answers. The
 * same statement sets `last_used_at` of the usable keys whose stamp is older than
 * `LAST_USED_RESOLUTION_MS` (one round trip and one commit: a lookup after a quiet minute
 * stamped its keys in a second statement, which the request waited for too).
 */
async function lookUpApiKeys(
  ctx: AppContext,
  hashes: readonly string[],
): Promise<Array<KeyLookup | Error>> {
  // Several processes may stamp overlapping keys in another order: a deadlock is retried.
  const { rows } = await retryOnDeadlock(() =>
    ctx.database.pool.query<KeyRow>({
      name: "api-keys-look-up",
      text: `WITH found AS (
               SELECT k.id, k.org_id, k.key_hash, k.scopes, k.revoked_at, k.expires_at,
                      k.last_used_at, o.plan, o.suspended_at, k.allowed_ips
               FROM api_keys k JOIN orgs o ON o.id = k.org_id
               WHERE k.key_hash = ANY($1::text[])
             ), stamped AS (
               UPDATE api_keys k SET last_used_at = now()
               FROM found f
               WHERE k.id = f.id AND f.revoked_at IS NULL AND f.suspended_at IS NULL
                 AND (f.expires_at IS NULL OR f.expires_at > now())
                 AND (f.last_used_at IS NULL
                      OR f.last_used_at <= now() - make_interval(secs => $2::double precision))
             )
             SELECT id AS key_id, org_id, key_hash, scopes, revoked_at, expires_at, plan, suspended_at,
                    allowed_ips
             FROM found`,
      values: [[...new Set(hashes)], LAST_USED_RESOLUTION_MS / 1000],
    }),
  );
  const byHash = new Map(rows.map((row) => [row.key_hash, row]));
  const now = Date.now();
  return hashes.map((hash): KeyLookup | Error => {
    const row = byHash.get(hash);
    if (row === undefined || !hashesEqual(row.key_hash, hash))
      return new UnauthorizedError({ details: { reason: "unknown key" } });
    if (row.revoked_at !== null)
      return new UnauthorizedError({ details: { reason: "revoked key", keyId: row.key_id } });
    if (row.expires_at !== null && row.expires_at.getTime() <= now)
      return new ApiKeyExpiredError({ details: { keyId: row.key_id } });
    if (row.suspended_at !== null)
      return new OrgSuspendedError({ details: { orgId: row.org_id, keyId: row.key_id } });
    return {
      principal: {
        orgId: row.org_id,
        keyId: row.key_id,
        scopes: row.scopes,
        grantedScopes: expandScopes(row.scopes),
        plan: row.plan,
        ...(row.allowed_ips === null ? {} : { allowedIps: parseRanges(row.allowed_ips) }),
      },
      expiresAt: row.expires_at?.getTime() ?? null,
    };
  });
}
