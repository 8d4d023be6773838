/**
 * The last block's value standing in for the head's while the node is slow to answer (it
 * answers slowly while it mines): a write's checks wait `STAND_IN_AFTER_MS` for the head's
 * value, then take the last one read, if it was asked for at most `STAND_IN_MAX_AGE_MS` ago
 * (about two blocks at 1 s). Used by `HeadReads` (balances, compliance views) and
 * `FeeOracle.quoteForCheck` (the fee quote); each says why its stand-in is safe.
 */
const STAND_IN_AFTER_MS = 20;
export const STAND_IN_MAX_AGE_MS = 2_000;

/**
 * `current`, or `last` if `current` has not answered within `STAND_IN_AFTER_MS`. One timer per
 * call: callers share the returned promise among the requests that wait for the same read.
 */
export function withStandIn<T>(current: Promise<T>, last: T): Promise<T> {
  return Promise.race([
    current,
    new Promise<T>((resolve) => setTimeout(resolve, STAND_IN_AFTER_MS, last)),
  ]);
}
