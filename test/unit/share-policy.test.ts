import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  grantOf,
  IDLE_RETURN_MS,
  isShareIdle,
  isShareUsable,
  leaseCap,
  lowWater,
  nextLeaseSize,
  requestBuckets,
  retryAfterSeconds,
  shouldLeaseAhead,
  sizeAfterIdle,
} from "../../relayer/src/limits/share-policy.js";

const NOW = 1_000_000;

describe("rate limits: the windows a request counts against", () => {
  it("requestBuckets returns the key's minute, the org's minute and the org's day, with the plan's limits", () => {
    assert.deepEqual(requestBuckets({ keyId: "key_1", orgId: "org_1", plan: "basic" }, 120), [
      { key: "key:key_1:m", limit: 120, windowSeconds: 60 },
      { key: "org:org_1:m", limit: 300, windowSeconds: 60 },
      { key: "org:org_1:d", limit: 50_000, windowSeconds: 86_400 },
    ]);
  });

  it("requestBuckets returns the free plan's limits for a plan name it does not know", () => {
    const [, minute, day] = requestBuckets({ keyId: "k", orgId: "o", plan: "platinum" }, 60);
    assert.equal(minute?.limit, 10);
    assert.equal(day?.limit, 5_000);
  });
});

describe("rate limits: the size of a lease", () => {
  it("leaseCap returns a twentieth of the limit, at least 1", () => {
    assert.deepEqual([1, 10, 39, 40, 300, 10_000].map(leaseCap), [1, 1, 1, 2, 15, 500]);
  });

  it("nextLeaseSize returns 1 for a bucket leased for the first time", () => {
    assert.equal(nextLeaseSize(10_000, undefined, undefined, NOW), 1);
  });

  it("nextLeaseSize doubles when the last share ran down to its low-water mark within the idle time", () => {
    const used = { left: 0, size: 8, takenAt: NOW - IDLE_RETURN_MS + 1 };
    assert.equal(nextLeaseSize(10_000, 8, used, NOW), 16);
    assert.equal(nextLeaseSize(10_000, 8, { ...used, left: 2 }, NOW), 16);
  });

  it("nextLeaseSize keeps the size when the last share lasted the idle time or still has more than a quarter", () => {
    const slow = { left: 0, size: 8, takenAt: NOW - IDLE_RETURN_MS };
    assert.equal(nextLeaseSize(10_000, 8, slow, NOW), 8);
    assert.equal(nextLeaseSize(10_000, 8, { ...slow, takenAt: NOW, left: 3 }, NOW), 8);
  });

  it("nextLeaseSize never returns more than leaseCap nor less than 1", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.option(fc.integer({ min: 0, max: 1_000_000 }), { nil: undefined }),
        fc.option(
          fc.record({
            left: fc.integer({ min: 0, max: 1_000 }),
            size: fc.integer({ min: 1, max: 1_000 }),
            takenAt: fc.integer({ min: 0, max: NOW }),
          }),
          { nil: undefined },
        ),
        (limit, lastSize, previous) => {
          const size = nextLeaseSize(limit, lastSize, previous, NOW);
          assert.ok(size >= 1 && size <= leaseCap(limit), `${size} for ${limit}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("sizeAfterIdle returns half the size, at least 1", () => {
    assert.deepEqual([1, 2, 3, 16].map(sizeAfterIdle), [1, 1, 1, 8]);
  });
});

describe("rate limits: what a lease is granted", () => {
  it("grantOf returns all it asked for while the counter stays within the limit", () => {
    assert.equal(grantOf(5, 100, 5), 5);
    assert.equal(grantOf(5, 100, 100), 5);
  });

  it("grantOf returns the part of its range under the limit when the counter passed it", () => {
    assert.equal(grantOf(5, 100, 103), 2);
  });

  it("grantOf returns 0 when the counter was already at the limit before this lease", () => {
    assert.equal(grantOf(5, 100, 105), 0);
    assert.equal(grantOf(5, 100, 1_000), 0);
  });

  it("leases taken one after another are never granted more than the limit in total", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 60 }),
        (limit, wants) => {
          let points = 0;
          let granted = 0;
          for (const want of wants) {
            points += want;
            const n = grantOf(want, limit, points);
            assert.ok(n >= 0 && n <= want);
            granted += n;
          }
          assert.ok(granted <= limit, `${granted} granted of ${limit}`);
          assert.equal(granted, Math.min(limit, points));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("rate limits: spending and handing back a share", () => {
  const share = { left: 3, limit: 100, endsAt: NOW + 10_000, size: 8, lastUsedAt: NOW };

  it("isShareUsable returns true while the share has hits left in an open window of the same limit", () => {
    assert.equal(isShareUsable(share, 100, NOW), true);
  });

  it("isShareUsable returns false with no share, none left, the window over, or the plan changed", () => {
    assert.equal(isShareUsable(undefined, 100, NOW), false);
    assert.equal(isShareUsable({ ...share, left: 0 }, 100, NOW), false);
    assert.equal(isShareUsable(share, 100, share.endsAt), false);
    assert.equal(isShareUsable(share, 300, NOW), false);
  });

  it("lowWater returns a quarter of the share, rounded down (0 below 4)", () => {
    assert.deepEqual([1, 3, 4, 7, 8, 20].map(lowWater), [0, 0, 1, 1, 2, 5]);
  });

  it("shouldLeaseAhead returns true when a share of 4 or more is down to a quarter, over a second before the window ends", () => {
    assert.equal(shouldLeaseAhead({ size: 8, left: 2, endsAt: NOW + 1_001 }, NOW), true);
  });

  it("shouldLeaseAhead returns false for a small share, one above its low water, or in the window's last second", () => {
    assert.equal(shouldLeaseAhead({ size: 3, left: 0, endsAt: NOW + 60_000 }, NOW), false);
    assert.equal(shouldLeaseAhead({ size: 8, left: 3, endsAt: NOW + 60_000 }, NOW), false);
    assert.equal(shouldLeaseAhead({ size: 8, left: 2, endsAt: NOW + 1_000 }, NOW), false);
  });

  it("isShareIdle returns true for a share with hits left unused for the idle time", () => {
    assert.equal(
      isShareIdle({ left: 1, lastUsedAt: NOW - IDLE_RETURN_MS }, NOW, IDLE_RETURN_MS),
      true,
    );
    assert.equal(isShareIdle({ left: 1, lastUsedAt: NOW - 1 }, NOW, IDLE_RETURN_MS), false);
    assert.equal(isShareIdle({ left: 0, lastUsedAt: 0 }, NOW, IDLE_RETURN_MS), false);
  });

  it("isShareIdle returns true for any share with hits left on shutdown (infinite idle time)", () => {
    assert.equal(isShareIdle({ left: 1, lastUsedAt: NOW }, NOW, Number.POSITIVE_INFINITY), true);
    assert.equal(isShareIdle({ left: 0, lastUsedAt: NOW }, NOW, Number.POSITIVE_INFINITY), false);
  });
});

describe("rate limits: Retry-After of a refusal", () => {
  it("retryAfterSeconds returns the whole seconds until the latest refused window ends", () => {
    assert.equal(retryAfterSeconds([NOW + 1_500, NOW + 42_001], NOW), 43);
    assert.equal(retryAfterSeconds([NOW + 60_000], NOW), 60);
  });

  it("retryAfterSeconds returns 1 when the windows ended or no share was ever held", () => {
    assert.equal(retryAfterSeconds([undefined], NOW), 1);
    assert.equal(retryAfterSeconds([NOW - 5_000], NOW), 1);
    assert.equal(retryAfterSeconds([], NOW), 1);
  });
});
