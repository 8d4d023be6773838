import type pg from "pg";

/** The circuit knobs of `DeliveryOptions`. */
export interface CircuitOptions {
  circuitThreshold: number;
  circuitBaseMs: number;
  circuitMaxMs: number;
}

/** A webhook's circuit as stored on its row. */
export interface CircuitState {
  consecutiveTimeouts: number;
  openUntil: Date | null;
  reason: string | null;
}

/**
 * How long a circuit opened for the `openedBefore + 1`-th time in a row holds deliveries:
 * `baseMs * 2^openedBefore`, capped at `maxMs`.
 */
export function circuitHoldMs(openedBefore: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(openedBefore, 30)));
}

/** Whether the circuit still holds deliveries at `nowMs`. */
export function isCircuitOpen(state: Pick<CircuitState, "openUntil">, nowMs = Date.now()): boolean {
  return state.openUntil !== null && state.openUntil.getTime() > nowMs;
}

/** The delivery log's words for a delivery held by an open circuit. */
export function heldMessage(reason: string | null, openUntil: Date): string {
  return `Held by the circuit breaker until ${openUntil.toISOString()}: ${reason ?? "repeated timeouts"}`;
}

/** What one more timeout or connection failure does to a webhook's circuit. */
export type CircuitVerdict =
  /** Fewer than `circuitThreshold` in a row: deliveries go on. */
  | { kind: "closed" }
  /** Another attempt in flight already opened it: held until `until`. */
  | { kind: "already-open"; until: Date }
  /** It opens now, for `holdMs`, with `reason` for the delivery log. */
  | { kind: "open"; holdMs: number; reason: string };

/**
 * The decision of `recordNetworkFailure`, from the webhook's counters after the failure was
 * counted: closed below `circuitThreshold` failures in a row; else still open until a hold that
 * has not ended; else opened for `circuitHoldMs(times opened before)`.
 *
 * @example
 * circuitAfterFailure({ consecutiveTimeouts: 5, openedCount: 1, openUntil: null }, "timeout",
 *   { circuitThreshold: 5, circuitBaseMs: 30_000, circuitMaxMs: 3_600_000 })
 * // { kind: "open", holdMs: 60_000, reason: "5 timeouts or connection failures in a row (last: timeout)" }
 */
export function circuitAfterFailure(
  counted: { consecutiveTimeouts: number; openedCount: number; openUntil: Date | null },
  error: string,
  options: CircuitOptions,
  nowMs = Date.now(),
): CircuitVerdict {
  if (counted.consecutiveTimeouts < options.circuitThreshold) return { kind: "closed" };
  if (counted.openUntil !== null && counted.openUntil.getTime() > nowMs)
    return { kind: "already-open", until: counted.openUntil };
  return {
    kind: "open",
    holdMs: circuitHoldMs(counted.openedCount, options.circuitBaseMs, options.circuitMaxMs),
    reason: `${counted.consecutiveTimeouts} timeouts or connection failures in a row (last: ${error})`,
  };
}

/**
 * Counts a timeout or connection failure of `webhookId` (atomically, so attempts in parallel
 * count exactly) and opens its circuit once `circuitThreshold` happened in a row: deliveries are
 * then held, without a request, for `circuitHoldMs(times opened before)`. The first attempt after
 * the hold is the probe: one more failure reopens it for twice as long, any HTTP answer closes
 * it (`recordAnswer`).
 *
 * @returns when the circuit holds deliveries until, or null while it stays closed
 */
export async function recordNetworkFailure(
  client: pg.ClientBase,
  webhookId: string,
  error: string,
  options: CircuitOptions,
): Promise<Date | null> {
  const { rows } = await client.query<{
    consecutive_timeouts: number;
    circuit_opened_count: number;
    circuit_open_until: Date | null;
  }>(
    `UPDATE webhooks SET consecutive_timeouts = consecutive_timeouts + 1 WHERE id = $1
     RETURNING consecutive_timeouts, circuit_opened_count, circuit_open_until`,
    [webhookId],
  );
  const row = rows[0];
  if (row === undefined) return null;
  const verdict = circuitAfterFailure(
    {
      consecutiveTimeouts: row.consecutive_timeouts,
      openedCount: row.circuit_opened_count,
      openUntil: row.circuit_open_until,
    },
    error,
    options,
  );
  if (verdict.kind === "closed") return null;
  if (verdict.kind === "already-open") return verdict.until;
  const { holdMs, reason } = verdict;
  const { rows: opened } = await client.query<{ circuit_open_until: Date }>(
    `UPDATE webhooks SET circuit_open_until = now() + make_interval(secs => $2::float8 / 1000),
       circuit_opened_count = circuit_opened_count + 1, circuit_reason = $3
     WHERE id = $1 RETURNING circuit_open_until`,
    [webhookId, holdMs, reason],
  );
  return opened[0]?.circuit_open_until ?? null;
}

/** Any HTTP answer (even a 500) shows the receiver is reachable: closes the circuit. */
export async function recordAnswer(client: pg.ClientBase, webhookId: string): Promise<void> {
  await client.query(
    `UPDATE webhooks SET consecutive_timeouts = 0, circuit_open_until = NULL, circuit_opened_count = 0,
       circuit_reason = NULL
     WHERE id = $1 AND (consecutive_timeouts <> 0 OR circuit_open_until IS NOT NULL OR circuit_opened_count <> 0)`,
    [webhookId],
  );
}
