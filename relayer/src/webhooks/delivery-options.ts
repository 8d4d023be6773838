const DAY_MS = 24 * 3600 * 1000;

/** Knobs of webhook delivery. Defaults are production values; tests shrink the backoff. */
export interface DeliveryOptions {
  /** Deadline of one attempt (spec: the receiver answers within 5 s). */
  timeoutMs: number;
  /** First retry delay; doubles per attempt (env WEBHOOK_BACKOFF_BASE_MS, default 10 s). */
  backoffBaseMs: number;
  /** Longest delay between two attempts (default 1 h). */
  backoffMaxMs: number;
  /** A delivery is retried for this long after it was created (default 3 days), then failed. */
  retryWindowMs: number;
  /** A webhook whose deliveries fail continuously for longer is disabled (default 3 days). */
  disableAfterMs: number;
  /** Deliveries in flight in this process (default 16). */
  concurrency: number;
  /** Deliveries in flight per webhook across all processes (default 2). */
  perWebhookConcurrency: number;
  /** Allow loopback/private destinations (config.webhookAllowLocal: development and tests). */
  allowLocal: boolean;
}

/** Defaults, with `WEBHOOK_BACKOFF_BASE_MS` from the environment when set. */
export function deliveryOptions(
  allowLocal: boolean,
  overrides: Partial<DeliveryOptions> = {},
): DeliveryOptions {
  const envBase = Number(process.env.WEBHOOK_BACKOFF_BASE_MS);
  return {
    timeoutMs: 5_000,
    backoffBaseMs: Number.isFinite(envBase) && envBase > 0 ? envBase : 10_000,
    backoffMaxMs: 3_600_000,
    retryWindowMs: 3 * DAY_MS,
    disableAfterMs: 3 * DAY_MS,
    concurrency: 16,
    perWebhookConcurrency: 2,
    allowLocal,
    ...overrides,
  };
}
