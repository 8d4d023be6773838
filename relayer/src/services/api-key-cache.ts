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
