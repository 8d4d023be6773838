import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TransactionFailedError, ValidationError } from "../../relayer/src/errors.js";
import { failedWriteError, writeFailure } from "../../relayer/src/writes/write-failure.js";

/** A row of a single call (not a group): the chain fields are set. */
const call = { toAddress: "0x0000000000000000000000000000000000000001", data: "0x" };

describe("writeFailure: a row's error as the API shows it", () => {
  it("a lost race is the check's 400 Listing not active", () => {
    const failure = writeFailure({ ...call, state: "failed", error: "Listing not active" });
    assert.ok(failure instanceof ValidationError);
    assert.equal(failure.message, "Listing not active");
  });

  it("a compliance rule the operator set after the checks ran is the check's 400 too", () => {
    for (const reason of [
      "Transfers are paused",
      "Asset is frozen",
      "Recipient is not allowed to hold this asset type",
    ]) {
      const failure = writeFailure({ ...call, state: "failed", error: reason });
      assert.ok(failure instanceof ValidationError, reason);
      assert.equal(failure.message, reason);
    }
  });

  it("any other revert is 500 Transaction failed: <reason>", () => {
    const failure = writeFailure({ ...call, state: "failed", error: "Below min stake" });
    assert.ok(failure instanceof TransactionFailedError);
    assert.equal(failure.message, "Transaction failed: Below min stake");
  });

  it("a replaced write fails with its stored reason, or unknown without one", () => {
    assert.equal(
      writeFailure({ ...call, state: "replaced", error: null })?.message,
      "Transaction failed: unknown",
    );
  });

  it("a live, mined or confirmed write has none, even with a reason already stored", () => {
    for (const state of ["queued", "sent", "mined", "confirmed"] as const)
      assert.equal(writeFailure({ ...call, state, error: "Below min stake" }), undefined, state);
  });

  it("a group (batch) whose items all failed has none: its items carry the errors", () => {
    assert.equal(
      writeFailure({ toAddress: null, data: null, state: "failed", error: null }),
      undefined,
    );
  });

  it("is the same error a revert at gas estimation answers with", () => {
    for (const reason of ["Listing not active", "Price above max"]) {
      const fromRow = writeFailure({ ...call, state: "failed", error: reason })!;
      const atEstimate = failedWriteError(reason);
      assert.equal(fromRow.constructor, atEstimate.constructor, reason);
      assert.equal(fromRow.message, atEstimate.message, reason);
    }
  });
});
