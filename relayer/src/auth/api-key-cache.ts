import type { IpRange } from "./allowed-ips.js";

/** Who is calling, as established from a valid, unrevoked API key. */
export interface ApiKeyPrincipal {
  orgId: string;
  keyId: string;
  /** The key's scopes as stored (may contain `write:all`). */
  scopes: string[];
  /** The concrete scopes granted (aliases expanded). */
  grantedScopes: ReadonlySet<string>;
  plan: string;
  /**
   * Where the key may be used from (`auth/allowed-ips.ts`), parsed once per lookup; undefined:
   * anywhere. `requireApiKey` refuses a request from elsewhere with 403.
   */
  allowedIps?: readonly IpRange[];
}

/**
 * How long a process reuses a successful key lookup: the bound on how long a key revoked by
 * another relayer process keeps working here should that process's notification be lost
 * (docs/api-decisions.md, "Authentication"). The process that revokes a key forgets it at once, and every other
 * process as soon as the `orgChanged` notification arrives (`orgs/controls.ts`).
 */
export const API_KEY_CACHE_TTL_MS = 2_000;

/** At most this many keys are remembered per process; when full, the cache starts over. */
const API_KEY_CACHE_MAX = 10_000;

/**
 * An entry older than this is still served, but its key is looked up again in the background
 * (refresh ahead): a key in steady use never makes a request wait for the database, and an entry
 * is still never served more than `API_KEY_CACHE_TTL_MS` after the lookup it came from.
 */
const API_KEY_REFRESH_AFTER_MS = API_KEY_CACHE_TTL_MS / 2;

/**
 * Successful lookups by key hash, in this process (`ctx.apiKeys`). Unknown and revoked keys are
 * never kept; an entry lives `API_KEY_CACHE_TTL_MS`, and is refreshed in the background once it
 * is half that old and used again.
 */
export class ApiKeyCache {
  readonly #byHash = new Map<
    string,
    { principal: ApiKeyPrincipal; until: number; refreshAt: number }
  >();

  readonly #loading = new Map<string, Promise<ApiKeyPrincipal>>();

  /**
   * The principal of a key hash: remembered, else from `load` (the database). Requests with the
   * same key that arrive while its lookup runs share that lookup: when an entry expires, an
   * organization's ten concurrent writers cost one statement, not ten. A remembered entry past
   * half its life is answered at once and looked up again behind it; if that lookup fails (the
   * key was revoked, the org suspended, or the database did not answer), the entry is dropped,
   * so the next request waits for a lookup of its own and gets its answer. `load` is told
   * whether a request waits for it (`background` false) or not (a refresh, which may linger to
   * share a statement with other keys' refreshes).
   *
   * When a request waits for a lookup of a key whose entry has expired (the key was quiet for
   * longer than the TTL), `onReturning` gets that expired entry's principal first: a hint, never
   * an answer, so the caller can start what the lookup will most likely confirm (the request's
   * rate-limit lease, `prefetchRequest`) beside the lookup instead of after it. An entry hints
   * once: a key forgotten on revocation or suspension, or whose look-up failed, leaves none.
   */
  async resolve(
    hash: string,
    load: (
      background: boolean,
    ) => Promise<{ principal: ApiKeyPrincipal; expiresAt: number | null }>,
    onReturning?: (hint: ApiKeyPrincipal) => void,
  ): Promise<ApiKeyPrincipal> {
    const now = Date.now();
    const known = this.#byHash.get(hash);
    if (known !== undefined && known.until > now) {
      if (now >= known.refreshAt && !this.#loading.has(hash))
        this.#load(hash, () => load(true)).catch(() => {
          if (this.#byHash.get(hash) === known) this.#byHash.delete(hash);
        });
      return known.principal;
    }
    const loading = this.#loading.get(hash);
    if (loading !== undefined) return loading;
    if (known !== undefined) {
      // Hinted once: the look-up remembers the key again, or it failed and the key is no hint.
      this.#byHash.delete(hash);
      onReturning?.(known.principal);
    }
    return this.#load(hash, () => load(false));
  }

  #load(
    hash: string,
    load: () => Promise<{ principal: ApiKeyPrincipal; expiresAt: number | null }>,
  ): Promise<ApiKeyPrincipal> {
    const pending: Promise<ApiKeyPrincipal> = load()
      .then(({ principal, expiresAt }) => {
        // A key forgotten (revoked) while its lookup ran is not remembered from it.
        if (this.#loading.get(hash) === pending) this.remember(hash, principal, expiresAt);
        return principal;
      })
      .finally(() => {
        if (this.#loading.get(hash) === pending) this.#loading.delete(hash);
      });
    this.#loading.set(hash, pending);
    return pending;
  }

  /** The principal of a key hash looked up less than the TTL ago, if any. */
  get(hash: string): ApiKeyPrincipal | undefined {
    const known = this.#byHash.get(hash);
    return known !== undefined && known.until > Date.now() ? known.principal : undefined;
  }

  /**
   * Remembers a successful lookup for `API_KEY_CACHE_TTL_MS`, or until `expiresAt` (ms since
   * the epoch) when the key expires sooner, so an expired key is never served from here.
   */
  remember(hash: string, principal: ApiKeyPrincipal, expiresAt: number | null = null): void {
    if (this.#byHash.size >= API_KEY_CACHE_MAX) this.#byHash.clear();
    const now = Date.now();
    const until = now + API_KEY_CACHE_TTL_MS;
    this.#byHash.set(hash, {
      principal,
      until: expiresAt === null ? until : Math.min(until, expiresAt),
      refreshAt: now + API_KEY_REFRESH_AFTER_MS,
    });
  }

  /** Forgets a key (on revocation), so its next request is checked in the database. */
  forget(keyId: string): void {
    this.#loading.clear();
    for (const [hash, entry] of this.#byHash)
      if (entry.principal.keyId === keyId) this.#byHash.delete(hash);
  }

  /** Forgets every key of an organization (its plan changed, it was suspended or resumed). */
  forgetOrg(orgId: string): void {
    this.#loading.clear();
    for (const [hash, entry] of this.#byHash)
      if (entry.principal.orgId === orgId) this.#byHash.delete(hash);
  }
}
