import { DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS } from "../config.js";
import type { Config } from "../context.js";

const DAY_MS = 24 * 3600 * 1000;

/** Knobs of webhook delivery. Defaults are production values; tests shrink the backoff. */
export interface DeliveryOptions {
  /** Deadline of one attempt (spec: the receiver answers within 5 s). */
  timeoutMs: number;
  /** First retry delay; doubles per attempt (`config.webhookBackoffBaseMs`, default 10 s). */
  backoffBaseMs: number;
  /** Longest delay between two attempts (default 1 h). */
  backoffMaxMs: number;
  /** A delivery is retried for this long after it was created (default 3 days), then failed. */
  retryWindowMs: number;
  /** A webhook whose deliveries fail continuously for longer is disabled (default 3 days). */
  disableAfterMs: number;
  /** Deliveries in flight in this process (default 16). */
  concurrency: number;
  /**
   * Deliveries in flight per organization in each process (default 4 of the 16): one
   * organization's slow or dead receivers hold at most this many of a process's slots.
   */
  perOrgConcurrency: number;
  /** Timeouts or connection failures in a row that open a webhook's circuit (default 3). */
  circuitThreshold: number;
  /** First hold of an open circuit; doubles each time it opens again (default 30 s). */
  circuitBaseMs: number;
  /** Longest hold of an open circuit (default 1 h). */
  circuitMaxMs: number;
  /** How long the previous secret still signs after a rotation (config, default 24 h). */
  secretGraceSeconds: number;
  /** Allow loopback/private destinations (config.webhookAllowLocal: development and tests). */
  allowLocal: boolean;
}

/**
 * The delivery knobs: production defaults, those that come from the configuration
 * (WEBHOOK_BACKOFF_BASE_MS, WEBHOOK_ALLOW_LOCAL, WEBHOOK_SECRET_GRACE_SECONDS, parsed by
 * `config.ts`), then `overrides`.
 *
 * @example
 * const options = deliveryOptions(ctx.config, { backoffBaseMs: 200 }); // tests: fast retries
 */
export function deliveryOptions(
  config: Pick<Config, "webhookAllowLocal" | "webhookBackoffBaseMs" | "webhookSecretGraceSeconds">,
  overrides: Partial<DeliveryOptions> = {},
): DeliveryOptions {
  return {
    timeoutMs: 5_000,
    backoffBaseMs: config.webhookBackoffBaseMs,
    backoffMaxMs: 3_600_000,
    retryWindowMs: 3 * DAY_MS,
    disableAfterMs: 3 * DAY_MS,
    concurrency: 16,
    perOrgConcurrency: 4,
    circuitThreshold: 3,
    circuitBaseMs: 30_000,
    circuitMaxMs: 3_600_000,
    secretGraceSeconds: config.webhookSecretGraceSeconds ?? DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS,
    allowLocal: config.webhookAllowLocal,
    ...overrides,
  };
}
