/**
 * Delay before the next attempt: exponential (`baseMs * 2^(attempts-1)`, capped at `maxMs`) with
 * "equal jitter" (half fixed, half random), and never earlier than the receiver's Retry-After.
 *
 * @param attempts attempts made so far (1 after the first failure)
 */
export function nextRetryDelayMs(
  attempts: number,
  baseMs: number,
  maxMs: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Parses a Retry-After header (delta seconds or an HTTP date) into milliseconds from `nowMs`. */
export function parseRetryAfterMs(
  header: string | undefined,
  nowMs = Date.now(),
): number | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
