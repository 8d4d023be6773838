import { planLimits } from "./plan-limits.js";

/**
 * The arithmetic of rate limits, in one place (docs/api-decisions.md): which windows a
 * request counts against, how big a share of a window a process leases, what a lease is granted,
 * when the next share is leased ahead, when a share goes back, and the `Retry-After` of a refusal.
 * Pure functions; `rate-limiter.ts` keeps the shares and talks to PostgreSQL.
 */

/** One limit to check: at most `limit` hits per fixed window of `windowSeconds`. */
export interface Bucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

/** What the arithmetic reads of a share a process holds. */
export interface ShareState {
  /** Hits left to spend. */
  left: number;
  /** The limit it was granted under: a changed plan drops the share. */
  limit: number;
  /** The window's end on this process's clock. */
  endsAt: number;
  /** Size of the last lease, and when it was taken: sizes the next one. */
  size: number;
  takenAt: number;
  lastUsedAt: number;
}

/**
 * A share of a bucket no request has used for this long goes back to PostgreSQL, and a share
 * used up within it was too small (the next lease doubles). Five seconds: an organization sending
 * about one request a second (ten writers each waiting seconds for their answers) leased and
 * returned a share for every second request with one second.
 */
export const IDLE_RETURN_MS = 5_000;

/** A lease is at most this fraction of the bucket's limit (and at least 1). */
export const LEASE_FRACTION = 20;

/**
 * A share of at least this size is renewed ahead: once a request leaves a quarter of it or less,
 * the next lease is taken in the background, so the requests that follow spend on instead of
 * waiting for PostgreSQL (ten concurrent writers of one organization each waited for the lease
 * statement, every time their share ran out). Smaller shares (plans of under 80 a minute) are
 * leased when used up, as before: a share leased ahead is held from the other processes.
 */
export const LEASE_AHEAD_MIN_SIZE = 4;

/** No share is leased ahead in a window's last second (it would end with the window). */
export const LEASE_AHEAD_MIN_LEFT_MS = 1_000;

/**
 * The buckets one API request counts against: its key's per-minute limit, and its organization
 * plan's per-minute and per-day allowances (an unknown plan: the free plan's). All apply, so the
 * strictest wins.
 *
 * @example
 * requestBuckets({ keyId: "key_1", orgId: "org_1", plan: "free" }, 60)
 * // [{ key: "key:key_1:m", limit: 60, windowSeconds: 60 },
 * //  { key: "org:org_1:m", limit: 10, windowSeconds: 60 },
 * //  { key: "org:org_1:d", limit: 5000, windowSeconds: 86400 }]
 */
export function requestBuckets(
  caller: { keyId: string; orgId: string; plan: string },
  perKeyPerMinute: number,
): Bucket[] {
  const plan = planLimits(caller.plan);
  return [
    { key: `key:${caller.keyId}:m`, limit: perKeyPerMinute, windowSeconds: 60 },
    { key: `org:${caller.orgId}:m`, limit: plan.perMinute, windowSeconds: 60 },
    { key: `org:${caller.orgId}:d`, limit: plan.perDay, windowSeconds: 86_400 },
  ];
}

/** What is left of a share of `size` when the next one is leased ahead (0 below 4: none). */
export function lowWater(size: number): number {
  return Math.floor(size / 4);
}

/** The largest lease of a bucket: a twentieth of its limit, at least 1. */
export function leaseCap(limit: number): number {
  return Math.max(1, Math.floor(limit / LEASE_FRACTION));
}

/**
 * The size of the next lease of a bucket: the last size (1 at first), doubled when the previous
 * share ran down to its low-water mark within `IDLE_RETURN_MS` of being taken (it was too
 * small), kept between 1 and `leaseCap(limit)`.
 *
 * @param lastSize the size the bucket's leases had reached (halved by idle returns)
 * @param previous the share held now, if any
 */
export function nextLeaseSize(
  limit: number,
  lastSize: number | undefined,
  previous: Pick<ShareState, "left" | "size" | "takenAt"> | undefined,
  now: number,
): number {
  let size = lastSize ?? 1;
  if (
    previous !== undefined &&
    previous.left <= lowWater(previous.size) &&
    now - previous.takenAt < IDLE_RETURN_MS
  )
    size *= 2;
  return Math.min(leaseCap(limit), Math.max(1, size));
}

/**
 * What a lease of `want` is granted when the bucket's counter, its own `want` added, reads
 * `points`: the part of its range `(points - want, points]` within `limit` (0 when none is).
 */
export function grantOf(want: number, limit: number, points: number): number {
  return Math.max(0, Math.min(want, limit - (points - want)));
}

/** Whether a share can pay for one more hit of a bucket of `limit` at `now`. */
export function isShareUsable(
  share: Pick<ShareState, "left" | "limit" | "endsAt"> | undefined,
  limit: number,
  now: number,
): boolean {
  return share !== undefined && share.left > 0 && share.endsAt > now && share.limit === limit;
}

/**
 * Whether, with a hit just spent from it, a share's next lease is taken ahead of need: a share of
 * at least `LEASE_AHEAD_MIN_SIZE` down to its low-water mark, more than
 * `LEASE_AHEAD_MIN_LEFT_MS` before its window ends.
 */
export function shouldLeaseAhead(
  share: Pick<ShareState, "left" | "size" | "endsAt">,
  now: number,
): boolean {
  return (
    share.size >= LEASE_AHEAD_MIN_SIZE &&
    share.left <= lowWater(share.size) &&
    share.endsAt - now > LEASE_AHEAD_MIN_LEFT_MS
  );
}

/**
 * Whether a share goes back to PostgreSQL: something left, unused for `idleMs` (always, with
 * `idleMs` infinite: on shutdown).
 */
export function isShareIdle(
  share: Pick<ShareState, "left" | "lastUsedAt">,
  now: number,
  idleMs: number,
): boolean {
  return (
    share.left > 0 && (idleMs === Number.POSITIVE_INFINITY || now - share.lastUsedAt >= idleMs)
  );
}

/** The lease size after a share went back idle: half, at least 1. */
export function sizeAfterIdle(size: number): number {
  return Math.max(1, Math.floor(size / 2));
}

/**
 * `Retry-After` of a refusal: whole seconds until the latest of the refused buckets' windows ends
 * (a bucket without a share counts as ending now), at least 1.
 */
export function retryAfterSeconds(
  windowEnds: ReadonlyArray<number | undefined>,
  now: number,
): number {
  let ms = 0;
  for (const endsAt of windowEnds) ms = Math.max(ms, (endsAt ?? now) - now);
  return Math.max(1, Math.ceil(ms / 1000));
}
