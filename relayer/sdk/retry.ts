/** How retries are spaced. */
export interface BackoffPolicy {
  /** First delay before jitter, in ms. */
  baseDelayMs: number;
  /** No delay is longer than this; a longer `Retry-After` is not waited for. */
  maxDelayMs: number;
}

/**
 * Delay before retry number `attempt` (0 for the first retry): exponential with "equal jitter"
 * (between half and all of `base * 2^attempt`, capped), and never shorter than `retryAfterMs`.
 */
export function retryDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.max(retryAfterMs ?? 0, Math.round(jittered));
}

/**
 * `Retry-After` as seconds: either delta-seconds or an HTTP date (RFC 9110). Undefined when absent
 * or unparsable.
 */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A random id: `crypto.randomUUID()` where available (secure contexts), else 128 random bits. */
export function randomId(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === "function") return c.randomUUID();
  const bytes = c.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
