import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bumpFees } from "../../relayer/src/chain/fee-oracle.js";

describe("fee bump", () => {
  it("raises both caps by at least 12.5% and never below the current quote", () => {
    const bumped = bumpFees(
      { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n },
      { maxFeePerGas: 900n, maxPriorityFeePerGas: 50n },
    );
    assert.ok(bumped.maxFeePerGas * 1000n >= 1000n * 1125n);
    assert.ok(bumped.maxPriorityFeePerGas * 1000n >= 100n * 1125n);
    const market = bumpFees(
      { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n },
      { maxFeePerGas: 5000n, maxPriorityFeePerGas: 500n },
    );
    assert.deepEqual(market, { maxFeePerGas: 5000n, maxPriorityFeePerGas: 500n });
  });
});
