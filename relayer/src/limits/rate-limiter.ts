import type pg from "pg";
import { RateLimitError } from "../errors.js";
import { Batcher } from "../db/batcher.js";
import { retryOnDeadlock } from "../db/client.js";
import {
  grantOf,
  IDLE_RETURN_MS,
  isShareIdle,
  isShareUsable,
  nextLeaseSize,
  requestBuckets,
  retryAfterSeconds,
  shouldLeaseAhead,
  sizeAfterIdle,
  type Bucket,
  type ShareState,
} from "./share-policy.js";

export type { Bucket };

/** Expired counters are swept about once per this many leases (any process may do it). */
const SWEEP_ONE_IN = 500;

/** How often idle shares are looked for. */
const IDLE_CHECK_MS = 1_000;

/** A share of one bucket's current window, granted by PostgreSQL and spent in this process. */
interface Allowance extends ShareState {
  /**
   * The window's end as PostgreSQL stored it (returns must name the same window); `endsAt` is
   * the same moment on this process's clock.
   */
  expiresAt: string;
}

interface LeaseRow {
  key: string;
  points: number;
  expires_at: string;
  reset_ms: string;
}

/**
 * Rate limits that hold across relayer processes without a statement per request. Each process
 * leases a share of a bucket's window from PostgreSQL (`rate_limits`: one row per bucket and
 * window) and spends it locally; a share left idle goes back. docs/api-decisions.md.
 *
 * Why the total never passes the limit: a lease adds what it asks for (`want`) to the bucket's
 * counter in one atomic statement, and is granted only the part of its range
 * `(points - want, points]` that lies within the limit. Ranges of concurrent leases are disjoint,
 * the counter only goes down by shares handed back unused, so what is used or held never exceeds
 * the limit. Asking more than is granted leaves the counter above the limit: it counts refused
 * demand, as before.
 *
 * A lease starts at 1 and doubles while a share runs out within `IDLE_RETURN_MS` (at most a
 * twentieth of the limit), and halves when one goes back idle: a plan of 10 per minute leases one
 * at a time.
 */
export class RateLimiter {
  readonly #pool: pg.Pool;
  readonly #allowances = new Map<string, Allowance>();
  readonly #sizes = new Map<string, number>();
  /** Per bucket, the lease being taken for it: what it will grant. */
  readonly #inFlight = new Map<string, Promise<number>>();
  /**
   * The leases asked for in one turn of the event loop, sent as one statement: when a hundred
   * organizations' first requests arrive together (after a quiet spell, every share went back),
   * one round trip and one commit, not a hundred.
   */
  readonly #leases = new Batcher<Bucket, number>(async (buckets) => {
    const granted = await this.#lease(buckets);
    return buckets.map((bucket) => granted.get(bucket.key) ?? 0);
  });
  #timer: NodeJS.Timeout | undefined;
  /** Lease statements sent so far (`rwa_rate_limit_leases_total`). */
  leases = 0;
  /** Of `leases`, those sent ahead of need, for a share not yet used up. */
  leasesAhead = 0;
  /** Times `prefetch` started a lease for a request not yet authenticated. */
  prefetches = 0;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Counts one request against every bucket, or throws `RateLimitError` with the seconds until
   * the exceeded window resets (nothing is spent from the other buckets then).
   */
  async consume(buckets: readonly Bucket[]): Promise<void> {
    // Each round either finds every share usable, or leases: a lease that PostgreSQL refuses
    // ends it; a granted share that concurrent requests of this process spent first asks again.
    // That ends too: every grant comes out of the window's limit, so the grants run out. (A cap
    // on rounds refused requests while the window still had room: 8 of 10 passed when 25 came
    // at once, each round's single share going to another request.)
    for (;;) {
      const now = Date.now();
      const missing = buckets.filter((b) => !this.#usable(b, now));
      if (missing.length === 0) {
        const ahead: Bucket[] = [];
        for (const bucket of buckets) {
          const allowance = this.#allowances.get(bucket.key)!;
          allowance.left--;
          allowance.lastUsedAt = now;
          if (shouldLeaseAhead(allowance, now) && !this.#inFlight.has(bucket.key))
            ahead.push(bucket);
        }
        // A failed lease ahead is no refusal: the request that finds the share used up leases.
        if (ahead.length > 0) {
          this.leasesAhead++;
          void this.#leaseFor(ahead).catch(() => undefined);
        }
        return;
      }
      const granted = await this.#leaseFor(missing);
      const refused = missing.filter((b) => granted.get(b.key) === 0);
      if (refused.length > 0) throw new RateLimitError(this.#secondsLeft(refused));
    }
  }

  /**
   * Starts leasing the buckets a request will most likely `consume` (those without a usable
   * share, not already being leased), without spending anything: the request's `consume` then
   * waits for that lease instead of sending its own. A share nobody spends goes back once idle,
   * like any other, so a wrong guess costs a statement and holds nothing for long.
   */
  prefetch(buckets: readonly Bucket[]): void {
    const now = Date.now();
    const missing = buckets.filter((b) => !this.#usable(b, now) && !this.#inFlight.has(b.key));
    if (missing.length === 0) return;
    this.prefetches++;
    void this.#leaseFor(missing).catch(() => undefined);
  }

  /**
   * Hands every unused share back (on shutdown) and stops the idle check. Leases still in flight
   * (ahead of need, or on a hint) are waited for first: one landing after the give-back would
   * keep its share out of the window until the window ends (a day, for a daily bucket).
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()]);
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#returnIdle(Number.POSITIVE_INFINITY).catch(() => undefined);
  }

  #usable(bucket: Bucket, now: number): boolean {
    return isShareUsable(this.#allowances.get(bucket.key), bucket.limit, now);
  }

  /** Seconds until the latest of these buckets' windows resets (at least 1). */
  #secondsLeft(buckets: readonly Bucket[]): number {
    const ends = buckets.map((bucket) => this.#allowances.get(bucket.key)?.endsAt);
    return retryAfterSeconds(ends, Date.now());
  }

  /**
   * Leases the buckets no other request of this process is leasing already (with the other
   * leases of this turn: `#leases`), waits for those that are, and answers what each bucket's
   * lease granted.
   */
  async #leaseFor(buckets: readonly Bucket[]): Promise<Map<string, number>> {
    const grants = buckets.map(async (bucket): Promise<[string, number]> => {
      let pending = this.#inFlight.get(bucket.key);
      if (pending === undefined) {
        const lease: Promise<number> = this.#leases.add(bucket).finally(() => {
          if (this.#inFlight.get(bucket.key) === lease) this.#inFlight.delete(bucket.key);
        });
        this.#inFlight.set(bucket.key, lease);
        pending = lease;
      }
      return [bucket.key, await pending];
    });
    return new Map(await Promise.all(grants));
  }

  /**
   * One statement for `buckets` (distinct keys: `#inFlight` lets one lease per bucket run at a
   * time). Rows are locked in key order, so leases of several processes never deadlock.
   */
  async #lease(unsorted: readonly Bucket[]): Promise<Map<string, number>> {
    const buckets = [...unsorted].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const now = Date.now();
    const values: string[] = [];
    const params: unknown[] = [];
    const wants = new Map<string, number>();
    for (const bucket of buckets) {
      const old = this.#allowances.get(bucket.key);
      const size = nextLeaseSize(bucket.limit, this.#sizes.get(bucket.key), old, now);
      this.#sizes.set(bucket.key, size);
      wants.set(bucket.key, size);
      if (old !== undefined && old.left > 0 && old.limit !== bucket.limit) {
        void this.#giveBack(bucket.key, old).catch(() => undefined); // the plan changed
      }
      params.push(bucket.key, size, bucket.windowSeconds);
      const n = params.length;
      values.push(`($${n - 2}, $${n - 1}::int, now() + make_interval(secs => $${n}::int))`);
    }
    this.leases++;
    // Leases lock their rows in key order; the sweep below (any process's) deletes old rows in
    // its own order, so a lease that meets it may deadlock: it is retried (a deadlock undoes the
    // whole statement).
    const { rows } = await retryOnDeadlock(() =>
      this.#pool.query<LeaseRow>(
        `INSERT INTO rate_limits AS r (key, points, expires_at) VALUES ${values.join(", ")}
         ON CONFLICT (key) DO UPDATE SET
           points = CASE WHEN r.expires_at <= now() THEN excluded.points ELSE r.points + excluded.points END,
           expires_at = CASE WHEN r.expires_at <= now() THEN excluded.expires_at ELSE r.expires_at END
         RETURNING key, points, expires_at::text AS expires_at,
                   (extract(epoch FROM (expires_at - now())) * 1000)::bigint::text AS reset_ms`,
        params,
      ),
    );
    if (Math.floor(Math.random() * SWEEP_ONE_IN) === 0) {
      await this.#pool.query(
        "DELETE FROM rate_limits WHERE expires_at < now() - interval '1 minute'",
      );
    }
    const taken = Date.now();
    const granted = new Map<string, number>();
    for (const bucket of buckets) {
      const row = rows.find((r) => r.key === bucket.key);
      if (row === undefined) continue;
      const want = wants.get(bucket.key)!;
      const n = grantOf(want, bucket.limit, row.points);
      granted.set(bucket.key, n);
      const old = this.#allowances.get(bucket.key);
      if (old !== undefined && old.expiresAt === row.expires_at && old.limit === bucket.limit) {
        old.left += n; // the same window: add to what is left
        old.size = want;
        old.takenAt = taken;
        continue;
      }
      this.#allowances.set(bucket.key, {
        left: n,
        limit: bucket.limit,
        expiresAt: row.expires_at,
        endsAt: taken + Number(row.reset_ms),
        size: want,
        takenAt: taken,
        lastUsedAt: taken,
      });
    }
    this.#startIdleCheck();
    return granted;
  }

  #startIdleCheck(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      void this.#returnIdle(IDLE_RETURN_MS).catch(() => undefined);
    }, IDLE_CHECK_MS);
    this.#timer.unref();
  }

  /** Gives back the shares no request used for `idleMs`; forgets ended windows. */
  async #returnIdle(idleMs: number): Promise<void> {
    const now = Date.now();
    const returns: Promise<void>[] = [];
    for (const [key, allowance] of this.#allowances) {
      if (allowance.endsAt <= now) {
        this.#allowances.delete(key);
        continue;
      }
      if (isShareIdle(allowance, now, idleMs)) {
        this.#sizes.set(key, sizeAfterIdle(allowance.size));
        returns.push(this.#giveBack(key, allowance));
      }
    }
    await Promise.all(returns);
  }

  /** Returns a share's unused part to its window (a no-op once that window has ended). */
  async #giveBack(key: string, allowance: Allowance): Promise<void> {
    const unused = allowance.left;
    allowance.left = 0;
    if (this.#allowances.get(key) === allowance) this.#allowances.delete(key);
    await this.#pool.query(
      "UPDATE rate_limits SET points = greatest(0, points - $2) WHERE key = $1 AND expires_at = $3::timestamptz",
      [key, unused, allowance.expiresAt],
    );
  }
}

/**
 * Counts one API request for a key and its organization and throws `RateLimitError` when any
 * limit is exceeded: `config.apiKeyRateLimitPerMinute` per key, and the org plan's per-minute and
 * per-day allowances (docs/api-decisions.md). All apply, so the strictest wins. The
 * counts live in PostgreSQL, leased to processes in shares (`RateLimiter`), so the limits hold
 * across relayer processes.
 *
 * @throws RateLimitError with `retryAfterSeconds` = time until the exceeded window resets
 */
export async function consumeRequest(ctx: LimitsContext, caller: Caller): Promise<void> {
  await ctx.rateLimiter.consume(requestBuckets(caller, ctx.config.apiKeyRateLimitPerMinute));
}

/**
 * Starts the lease `consumeRequest` will need for a caller's next request, before the request
 * is authenticated (`caller` is a hint: the key's expired cache entry). Spends nothing.
 */
export function prefetchRequest(ctx: LimitsContext, caller: Caller): void {
  ctx.rateLimiter.prefetch(requestBuckets(caller, ctx.config.apiKeyRateLimitPerMinute));
}

/** What the request limits read: the process's limiter and the per-key limit (`AppContext` has both). */
type LimitsContext = { rateLimiter: RateLimiter; config: { apiKeyRateLimitPerMinute: number } };

/** Who a request counts against. */
type Caller = { keyId: string; orgId: string; plan: string };

/**
 * Counts one use of a named per-organization allowance (`limit` per fixed window of
 * `windowSeconds`, leased from PostgreSQL like every other limit, so it holds across processes)
 * and throws `RateLimitError` with `message` once it is used up.
 *
 * @example
 * await consumeAllowance(ctx, `webhook-manual:${orgId}`, 30, 60, "Too many webhook test, redeliver or replay calls");
 * @throws RateLimitError with `retryAfterSeconds` = time until the window resets
 */
export async function consumeAllowance(
  ctx: Pick<LimitsContext, "rateLimiter">,
  key: string,
  limit: number,
  windowSeconds: number,
  message: string,
): Promise<void> {
  try {
    await ctx.rateLimiter.consume([{ key, limit, windowSeconds }]);
  } catch (error) {
    if (error instanceof RateLimitError) throw new RateLimitError(error.retryAfterSeconds, message);
    throw error;
  }
}
