/**
 * The `p`-th percentile (0-100) of `values` by the nearest-rank rule; NaN when there are none.
 * `values` need not be sorted and is not changed.
 *
 * @example
 * percentile([30, 10, 20], 50); // 20
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
