import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { nextRetryDelayMs, parseRetryAfterMs } from "../../relayer/src/webhooks/backoff.js";
import {
  circuitAfterFailure,
  circuitHoldMs,
  heldMessage,
  type CircuitOptions,
} from "../../relayer/src/webhooks/circuit-breaker.js";

/**
 * The webhook retry schedule: the delay between attempts (`backoff.ts`) and the circuit breaker's
 * holds (`circuit-breaker.ts`). The doubling and caps themselves are asserted with the delivery
 * tests (test/relayer/webhooks/signing-and-policy.test.ts); these cover the edges.
 */

describe("webhook backoff: the delay before the next attempt", () => {
  it("nextRetryDelayMs returns between half and all of the capped exponential delay, for any jitter", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempts, jitter) => {
          const full = Math.min(60_000, 1_000 * 2 ** Math.min(attempts - 1, 30));
          const delay = nextRetryDelayMs(attempts, 1_000, 60_000, undefined, () => jitter);
          assert.ok(delay >= full / 2 && delay <= full, `${attempts}: ${delay}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("nextRetryDelayMs treats 0 attempts as the first, and returns the cap for any huge count", () => {
    const fixed = () => 1;
    assert.equal(nextRetryDelayMs(0, 1_000, 60_000, undefined, fixed), 1_000);
    assert.equal(nextRetryDelayMs(1e9, 1_000, 60_000, undefined, fixed), 60_000);
  });

  it("nextRetryDelayMs returns the jittered delay when Retry-After is shorter", () => {
    assert.equal(
      nextRetryDelayMs(3, 1_000, 60_000, 500, () => 1),
      4_000,
    );
  });

  it("parseRetryAfterMs returns undefined when the header is absent or blank", () => {
    assert.equal(parseRetryAfterMs(undefined), undefined);
    assert.equal(parseRetryAfterMs("   "), undefined);
  });

  it("parseRetryAfterMs returns delta seconds in milliseconds, spaces trimmed", () => {
    assert.equal(parseRetryAfterMs(" 120 "), 120_000);
    assert.equal(parseRetryAfterMs("0"), 0);
  });

  it("parseRetryAfterMs returns the time until an HTTP date, and 0 for a date already past", () => {
    const now = Date.parse("2026-05-01T12:00:00Z");
    assert.equal(parseRetryAfterMs("Fri, 01 May 2026 12:00:30 GMT", now), 30_000);
    assert.equal(parseRetryAfterMs("Fri, 01 May 2026 11:00:00 GMT", now), 0);
  });
});

describe("webhook circuit breaker: what a timeout or connection failure does", () => {
  const options: CircuitOptions = {
    circuitThreshold: 5,
    circuitBaseMs: 30_000,
    circuitMaxMs: 3_600_000,
  };
  const now = Date.parse("2026-05-01T12:00:00Z");
  /** The verdict at `now` on a failure with the error "timeout". */
  const afterTimeout = (counted: Parameters<typeof circuitAfterFailure>[0]) =>
    circuitAfterFailure(counted, "timeout", options, now);

  it("circuitAfterFailure returns closed while fewer than the threshold failed in a row", () => {
    assert.deepEqual(afterTimeout({ consecutiveTimeouts: 4, openedCount: 3, openUntil: null }), {
      kind: "closed",
    });
  });

  it("circuitAfterFailure opens the circuit at the threshold, for the base hold the first time", () => {
    const verdict = circuitAfterFailure(
      { consecutiveTimeouts: 5, openedCount: 0, openUntil: null },
      "connect ECONNREFUSED",
      options,
      now,
    );
    assert.deepEqual(verdict, {
      kind: "open",
      holdMs: 30_000,
      reason: "5 timeouts or connection failures in a row (last: connect ECONNREFUSED)",
    });
  });

  it("circuitAfterFailure returns the current hold when another attempt already opened it", () => {
    const until = new Date(now + 1);
    assert.deepEqual(afterTimeout({ consecutiveTimeouts: 9, openedCount: 1, openUntil: until }), {
      kind: "already-open",
      until,
    });
  });

  it("circuitAfterFailure reopens for twice as long when the probe after a hold fails", () => {
    const verdict = afterTimeout({
      consecutiveTimeouts: 6,
      openedCount: 1,
      openUntil: new Date(now),
    });
    assert.equal(verdict.kind === "open" && verdict.holdMs, 60_000);
  });

  it("circuitHoldMs returns the base hold for a negative count of openings", () => {
    assert.equal(circuitHoldMs(-3, 30_000, 3_600_000), 30_000);
  });

  it("heldMessage returns the delivery log's words, with the default reason when none was stored", () => {
    const until = new Date("2026-05-01T12:00:30.000Z");
    assert.equal(
      heldMessage("5 timeouts", until),
      "Held by the circuit breaker until 2026-05-01T12:00:30.000Z: 5 timeouts",
    );
    assert.equal(
      heldMessage(null, until),
      "Held by the circuit breaker until 2026-05-01T12:00:30.000Z: repeated timeouts",
    );
  });
});
