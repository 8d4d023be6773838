import assert from "node:assert/strict";

/**
 * Asserts the retry policy the webhook sender and the SDK share (docs/webhooks.md, docs/sdk.md):
 * the delay doubles from `baseMs` with each attempt, up to `maxMs`; jitter takes it anywhere from
 * half of that to all of it; a Retry-After longer than the delay wins, even above `maxMs`.
 *
 * @param delay the function under test, with its random source fixed to `jitter`
 * @param policy `firstAttempt` is the attempt number whose delay is `baseMs` (0 or 1)
 * @example
 * assertExponentialBackoff((n, retryAfterMs, jitter) => retryDelayMs(n, policy, retryAfterMs, () => jitter),
 *   { firstAttempt: 0, baseMs: 100, maxMs: 1_000 });
 */
export function assertExponentialBackoff(
  delay: (attempt: number, retryAfterMs: number | undefined, jitter: number) => number,
  policy: { firstAttempt: number; baseMs: number; maxMs: number },
): void {
  const { firstAttempt: first, baseMs, maxMs } = policy;
  // [attempt, Retry-After in ms (or none), jitter, expected delay]
  const cases: Array<[number, number | undefined, number, number]> = [
    [first, undefined, 0, baseMs / 2],
    [first, undefined, 1, baseMs],
    [first + 3, undefined, 1, 8 * baseMs],
    [first + 39, undefined, 1, maxMs],
    [first, maxMs / 2, 0, maxMs / 2],
    [first, 2 * maxMs, 1, 2 * maxMs],
  ];
  for (const [attempt, retryAfterMs, jitter, expected] of cases) {
    assert.equal(
      delay(attempt, retryAfterMs, jitter),
      expected,
      `attempt ${attempt}, Retry-After ${retryAfterMs}, jitter ${jitter}`,
    );
  }
}
