import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bumpFees, type FeeQuote } from "../../relayer/src/engine/fee-oracle.js";
import {
  chooseFeeModel,
  describeFeeModel,
  MIN_TIP,
  quoteFor,
  type FeeModel,
} from "../../relayer/src/engine/fee-policy.js";
import type { FeeSignals } from "../../relayer/src/chain/rpc/node-dialect.js";

const GWEI = 10n ** 9n;

describe("chooseFeeModel: the fee model from a node's answers", () => {
  // Signals as anvil 1.7 answers them at each setting (recorded by hand with curl), and as the
  // nodes the proxy imitates answer them.
  const cases: Array<[string, FeeSignals, FeeModel]> = [
    [
      "anvil (cancun): a base fee and eth_feeHistory → type 2 from the fee history",
      { baseFeePerGas: GWEI, gasPrice: 2n * GWEI, feeHistory: "yes", maxPriorityFeePerGas: "yes" },
      { type: 2, source: "eth_feeHistory" },
    ],
    [
      "anvil --hardfork berlin: no base fee in blocks → legacy type 0 from eth_gasPrice, though it answers eth_feeHistory",
      {
        baseFeePerGas: null,
        gasPrice: 1_875_000_000n,
        feeHistory: "yes",
        maxPriorityFeePerGas: "yes",
      },
      { type: 0, source: "eth_gasPrice" },
    ],
    [
      "a London node without eth_feeHistory → type 2 from eth_maxPriorityFeePerGas",
      { baseFeePerGas: GWEI, gasPrice: 2n * GWEI, feeHistory: "no", maxPriorityFeePerGas: "yes" },
      { type: 2, source: "eth_maxPriorityFeePerGas" },
    ],
    [
      "a London node with neither fee method → type 2 from eth_gasPrice",
      { baseFeePerGas: GWEI, gasPrice: 2n * GWEI, feeHistory: "no", maxPriorityFeePerGas: "no" },
      { type: 2, source: "eth_gasPrice" },
    ],
    [
      "eth_feeHistory that could not be read is not relied on",
      {
        baseFeePerGas: GWEI,
        gasPrice: 2n * GWEI,
        feeHistory: "unknown",
        maxPriorityFeePerGas: "yes",
      },
      { type: 2, source: "eth_maxPriorityFeePerGas" },
    ],
    [
      "a free-gas London network (base fee 0, gas price 0: Besu's zeroBaseFee) → free, type 2",
      { baseFeePerGas: 0n, gasPrice: 0n, feeHistory: "yes", maxPriorityFeePerGas: "yes" },
      { type: 2, source: "free" },
    ],
    [
      "a free-gas legacy network (anvil --hardfork berlin --gas-price 0, GoQuorum) → free, type 0",
      { baseFeePerGas: null, gasPrice: 0n, feeHistory: "no", maxPriorityFeePerGas: "no" },
      { type: 0, source: "free" },
    ],
    [
      "anvil --base-fee 0 --gas-price 0 still asks 1 gwei through eth_gasPrice: not free, a 1 gwei tip is paid",
      { baseFeePerGas: 0n, gasPrice: GWEI, feeHistory: "yes", maxPriorityFeePerGas: "yes" },
      { type: 2, source: "eth_feeHistory" },
    ],
  ];
  for (const [title, signals, model] of cases)
    it(title, () => assert.deepEqual(chooseFeeModel(signals), model));

  it("refuses to price a legacy chain whose eth_gasPrice did not answer", () => {
    assert.throws(
      () =>
        chooseFeeModel({
          baseFeePerGas: null,
          gasPrice: undefined,
          feeHistory: "no",
          maxPriorityFeePerGas: "no",
        }),
      /eth_gasPrice/,
    );
  });

  it("describes a model in one line", () => {
    assert.equal(
      describeFeeModel({ type: 2, source: "eth_feeHistory" }),
      "EIP-1559 (type 2), price from eth_feeHistory",
    );
    assert.equal(
      describeFeeModel({ type: 0, source: "free" }),
      "legacy gasPrice (type 0), free gas (all prices 0)",
    );
  });
});

describe("quoteFor: a quote in each model", () => {
  it("type 2 from the fee history: maxFee = 2 × next base fee + tip, the tip at least 1 gwei", () => {
    const model: FeeModel = { type: 2, source: "eth_feeHistory" };
    assert.deepEqual(quoteFor(model, { baseFeePerGas: 7n * GWEI, tip: 0n }), {
      type: 2,
      maxFeePerGas: 14n * GWEI + MIN_TIP,
      maxPriorityFeePerGas: MIN_TIP,
    });
    assert.deepEqual(quoteFor(model, { baseFeePerGas: 7n * GWEI, tip: 3n * GWEI }), {
      type: 2,
      maxFeePerGas: 17n * GWEI,
      maxPriorityFeePerGas: 3n * GWEI,
    });
  });
  it("type 2 from eth_gasPrice: the tip is what the gas price adds to the base fee", () => {
    const quote = quoteFor(
      { type: 2, source: "eth_gasPrice" },
      { baseFeePerGas: 10n * GWEI, gasPrice: 12n * GWEI },
    );
    assert.deepEqual(quote, {
      type: 2,
      maxFeePerGas: 22n * GWEI,
      maxPriorityFeePerGas: 2n * GWEI,
    });
  });
  it("type 0: the node's gas price as both caps", () => {
    assert.deepEqual(
      quoteFor({ type: 0, source: "eth_gasPrice" }, { baseFeePerGas: 0n, gasPrice: 5n * GWEI }),
      { type: 0, maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: 5n * GWEI },
    );
  });
  it("free gas: zero in either type", () => {
    for (const type of [0, 2] as const)
      assert.deepEqual(quoteFor({ type, source: "free" }, { baseFeePerGas: 0n }), {
        type,
        maxFeePerGas: 0n,
        maxPriorityFeePerGas: 0n,
      });
  });
});

describe("bumpFees: a replacement's fees in both models", () => {
  it("type 2: raises both caps by at least 12.5% and never below the current quote", () => {
    const bumped = bumpFees(
      { type: 2, maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n },
      { type: 2, maxFeePerGas: 900n, maxPriorityFeePerGas: 50n },
    );
    assert.ok(bumped.maxFeePerGas * 1000n >= 1000n * 1125n);
    assert.ok(bumped.maxPriorityFeePerGas * 1000n >= 100n * 1125n);
    const market = bumpFees(
      { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n },
      { type: 2, maxFeePerGas: 5000n, maxPriorityFeePerGas: 500n },
    );
    assert.deepEqual(market, { type: 2, maxFeePerGas: 5000n, maxPriorityFeePerGas: 500n });
  });
  it("type 0: the price (both caps) rises by at least 12.5% and the caps stay equal", () => {
    let attempt: FeeQuote = { type: 0, maxFeePerGas: 1000n, maxPriorityFeePerGas: 1000n };
    const market: FeeQuote = { type: 0, maxFeePerGas: 900n, maxPriorityFeePerGas: 900n };
    for (let i = 0; i < 5; i++) {
      const next = bumpFees(attempt, market);
      assert.equal(next.type, 0);
      assert.equal(next.maxFeePerGas, next.maxPriorityFeePerGas);
      assert.ok(next.maxFeePerGas * 1000n >= attempt.maxFeePerGas * 1125n);
      attempt = next;
    }
    assert.deepEqual(
      bumpFees(
        { type: 0, maxFeePerGas: 1000n, maxPriorityFeePerGas: 1000n },
        { type: 0, maxFeePerGas: 5000n, maxPriorityFeePerGas: 5000n },
      ),
      { type: 0, maxFeePerGas: 5000n, maxPriorityFeePerGas: 5000n },
    );
  });
  it("a legacy attempt replaced after the chain moved to London goes out as type 2, above the old price", () => {
    const next = bumpFees(
      { type: 0, maxFeePerGas: 1000n, maxPriorityFeePerGas: 1000n },
      { type: 2, maxFeePerGas: 3000n, maxPriorityFeePerGas: 100n },
    );
    assert.equal(next.type, 2);
    assert.ok(next.maxPriorityFeePerGas >= 1125n && next.maxFeePerGas >= 3000n);
  });
  it("a quote without a type (an attempt recorded before types) is bumped as type 2", () => {
    assert.equal(
      bumpFees(
        { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n },
        { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n },
      ).type,
      2,
    );
  });
  it("free gas: a bump is 1 wei, above the zero fee cap a free write reserves, so the engine re-sends instead of bumping", () => {
    const next = bumpFees(
      { type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
      { type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
    );
    assert.deepEqual(next, { type: 2, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
  });
});
