import assert from "node:assert/strict";

/** One retry-delay case: [attempt, Retry-After in ms (or none), jitter in [0, 1], expected delay]. */
export type BackoffCase = [number, number | undefined, number, number];

/**
 * Asserts a retry-delay function (the webhook sender's, the SDK's) case by case, naming the case
 * that fails.
 *
 * @param delay the function under test, with its jitter source fixed to the case's value
 * @example
 * assertBackoff((n, retryAfterMs, jitter) => nextRetryDelayMs(n, 1_000, 60_000, retryAfterMs, () => jitter), [
 *   [1, undefined, 1, 1_000],
 * ]);
 */
export function assertBackoff(
  delay: (attempt: number, retryAfterMs: number | undefined, jitter: number) => number,
  cases: BackoffCase[],
): void {
  for (const [attempt, retryAfterMs, jitter, expected] of cases) {
    assert.equal(
      delay(attempt, retryAfterMs, jitter),
      expected,
      `attempt ${attempt}, Retry-After ${retryAfterMs}, jitter ${jitter}`,
    );
  }
}
