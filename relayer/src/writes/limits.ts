/**
 * Input limits of the write endpoints (the spec leaves them "not shown"; these are ours, also in
 * docs/api-decisions.md, "Writes"). Lengths are in characters.
 */
export const WRITE_LIMITS = {
  nameMax: 200,
  descriptionMax: 2_000,
  urlMax: 2_048,
  passwordMax: 256,
  assetTypeMax: 64,
  ipfsHashMax: 128,
  idempotencyKeyMax: 255,
  batchMax: 50,
  durationDaysMin: 1,
  durationDaysMax: 365,
  durationDaysDefault: 30,
  /** Minimum stake, in wei (0.1 native coin; the contract's MIN_STAKE). */
  minStakeWei: 10n ** 17n,
  /** Default stake when `stakedAmount` is omitted. */
  defaultStake: "0.1",
  /**
   * Writes of one organization being accepted at once (checks and record; a sync write's wait for
   * its receipt does not count); one more is refused with 429 at once (`writes/admission.ts`), so
   * that one organization's flood cannot take the whole accept path (WRITE_ACCEPT_CONCURRENCY,
   * default 128) from the others. The spec's 10 concurrent write transactions per organization
   * are the ones in flight on chain (`engine/decisions.ts`).
   */
  acceptingPerOrg: 64,
  /** More live operations than this per org → 429 (they would wait too long). */
  maxQueuedPerOrg: 200,
  /** Idempotency records are kept at least this long. */
  idempotencyTtlMs: 24 * 3600 * 1000,
} as const;
