import type { AppContext } from "../context.js";
import { RateLimitError } from "../errors.js";
import { planLimits } from "./plan-limits.js";

/** One limit to check: at most `limit` hits per fixed window of `windowSeconds`. */
interface Bucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

/** Expired counters are swept about once per this many hits (any process may do it). */
const SWEEP_ONE_IN = 500;

/**
 * Counts one request against every bucket in one atomic statement and returns each bucket's
 * count and seconds to reset. Each row is a fixed window: the first hit after `expires_at`
 * restarts it at 1. Being a single `INSERT ... ON CONFLICT DO UPDATE`, concurrent hits from any
 * number of processes are counted exactly.
 */
async function hit(
  ctx: AppContext,
  buckets: readonly Bucket[],
): Promise<{ key: string; points: number; resetSeconds: number }[]> {
  const values: string[] = [];
  const params: unknown[] = [];
  for (const bucket of buckets) {
    params.push(bucket.key, bucket.windowSeconds);
    values.push(
      `($${params.length - 1}, 1, now() + make_interval(secs => $${params.length}::int))`,
    );
  }
  const { rows } = await ctx.database.pool.query<{
    key: string;
    points: number;
    reset_seconds: string;
  }>(
    `INSERT INTO rate_limits AS r (key, points, expires_at) VALUES ${values.join(", ")}
     ON CONFLICT (key) DO UPDATE SET
       points = CASE WHEN r.expires_at <= now() THEN 1 ELSE r.points + 1 END,
       expires_at = CASE WHEN r.expires_at <= now() THEN excluded.expires_at ELSE r.expires_at END
     RETURNING key, points, extract(epoch FROM (expires_at - now()))::text AS reset_seconds`,
    params,
  );
  if (Math.floor(Math.random() * SWEEP_ONE_IN) === 0) {
    await ctx.database.pool.query(
      "DELETE FROM rate_limits WHERE expires_at < now() - interval '1 minute'",
    );
  }
  return rows.map((row) => ({
    key: row.key,
    points: row.points,
    resetSeconds: Number(row.reset_seconds),
  }));
}

/**
 * Counts one API request for a key and its organization and throws `RateLimitError` when any
 * limit is exceeded: `config.apiKeyRateLimitPerMinute` per key, and the org plan's per-minute and
 * per-day allowances (README "Decisions": rate limits). All apply, so the strictest wins. Counters live in
 * PostgreSQL, so the limits hold across relayer processes. Rejected requests count too.
 *
 * @throws RateLimitError with `retryAfterSeconds` = time until the exceeded window resets
 */
export async function consumeRequest(
  ctx: AppContext,
  caller: { keyId: string; orgId: string; plan: string },
): Promise<void> {
  const plan = planLimits(caller.plan);
  const buckets: Bucket[] = [
    { key: `key:${caller.keyId}:m`, limit: ctx.config.apiKeyRateLimitPerMinute, windowSeconds: 60 },
    { key: `org:${caller.orgId}:m`, limit: plan.perMinute, windowSeconds: 60 },
    { key: `org:${caller.orgId}:d`, limit: plan.perDay, windowSeconds: 86_400 },
  ];
  const results = await hit(ctx, buckets);
  let retryAfter = 0;
  for (const bucket of buckets) {
    const result = results.find((r) => r.key === bucket.key);
    if (result !== undefined && result.points > bucket.limit)
      retryAfter = Math.max(retryAfter, result.resetSeconds);
  }
  if (retryAfter > 0) throw new RateLimitError(retryAfter);
}
