import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bumpFees, type FeeQuote } from "../../relayer/src/engine/fee-oracle.js";
import {
  attemptOf,
  cancelFees,
  capFees,
  chooseFeeModel,
  describeFeeModel,
  feeCapOf,
  feesOf,
  keptQuote,
  MIN_TIP,
  nextFees,
  quoteFor,
  reservedFeeCap,
  unsignedTx,
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

describe("keptQuote: one price for a run of blocks", () => {
  const quote = (maxFeePerGas: bigint, tip = GWEI) =>
    ({ type: 2, maxFeePerGas, maxPriorityFeePerGas: tip }) as const;
  const kept = quote(GWEI + 600_000n); // 2 × a base fee of 300,000 wei + a 1 gwei tip

  it("keeps the last price while the base fee rises and it would still pay 90% of its tip", () => {
    // A backlog's full blocks took the base fee from 300,000 wei to 1.8 million: each block's
    // quote was a little higher; the kept one stays, so every write waits in the order it came.
    for (const base of [300_000n, 900_000n, 1_800_000n])
      assert.deepEqual(keptQuote(kept, quote(GWEI + 2n * base), base), kept);
    // After two more full blocks (×81/64) the kept cap leaves the tip minus the base fee.
    const limit = ((kept.maxFeePerGas - (GWEI * 9n) / 10n) * 64n) / 81n;
    assert.deepEqual(keptQuote(kept, quote(GWEI + 2n * limit), limit), kept);
    const past = limit + 2n;
    assert.deepEqual(keptQuote(kept, quote(GWEI + 2n * past), past), quote(GWEI + 2n * past));
  });

  it("takes the market's price when the base fee passes it, the tip doubles or halves, or the market falls below half", () => {
    const atBase = quote(14n * GWEI + GWEI);
    assert.deepEqual(keptQuote(kept, atBase, 7n * GWEI), atBase, "a base fee of 7 gwei");
    const dearTip = quote(3n * GWEI + 600_000n, 3n * GWEI);
    assert.deepEqual(keptQuote(kept, dearTip, 300_000n), dearTip);
    const cheapTip = quote(GWEI / 4n + 600_000n, GWEI / 4n);
    assert.deepEqual(keptQuote(kept, cheapTip, 300_000n), cheapTip);
    // Our own re-priced writes (+12.5% tips) move the market's median tip by less than 2×: kept.
    assert.deepEqual(keptQuote(kept, quote(GWEI + 600_000n, (GWEI * 9n) / 8n), 300_000n), kept);
    const high = quote(20n * GWEI + GWEI);
    const fell = quote(2n * GWEI + GWEI);
    assert.deepEqual(keptQuote(high, fell, GWEI), fell, "kept was more than twice the market's");
  });

  it("legacy and free quotes, and the first quote, are the market's", () => {
    const legacy = { type: 0, maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: 5n * GWEI } as const;
    assert.deepEqual(keptQuote(kept, legacy, 0n), legacy);
    assert.deepEqual(keptQuote(undefined, kept, 300_000n), kept);
    const free = quote(0n, 0n);
    assert.deepEqual(keptQuote(free, quote(GWEI + 600_000n), 300_000n), quote(GWEI + 600_000n));
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
  it("type 2 from eth_maxPriorityFeePerGas: the node's suggested tip on top of twice the base fee", () => {
    assert.deepEqual(
      quoteFor(
        { type: 2, source: "eth_maxPriorityFeePerGas" },
        { baseFeePerGas: 4n * GWEI, tip: 2n * GWEI },
      ),
      { type: 2, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: 2n * GWEI },
    );
  });
  it("type 2 from eth_gasPrice returns the 1 gwei tip floor when the gas price is at or below the base fee", () => {
    for (const gasPrice of [10n * GWEI, 9n * GWEI, undefined])
      assert.deepEqual(
        quoteFor({ type: 2, source: "eth_gasPrice" }, { baseFeePerGas: 10n * GWEI, gasPrice }),
        { type: 2, maxFeePerGas: 20n * GWEI + MIN_TIP, maxPriorityFeePerGas: MIN_TIP },
        String(gasPrice),
      );
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
  it("returns exactly ceil(12.5%) + 1 wei above the previous caps when the market is lower", () => {
    // [previous attempt, market quote, replacement]
    const cases: Array<[FeeQuote, FeeQuote, FeeQuote]> = [
      [
        { type: 0, maxFeePerGas: 1000n, maxPriorityFeePerGas: 1000n },
        { type: 0, maxFeePerGas: 900n, maxPriorityFeePerGas: 900n },
        { type: 0, maxFeePerGas: 1126n, maxPriorityFeePerGas: 1126n },
      ],
      [
        { type: 2, maxFeePerGas: 1001n, maxPriorityFeePerGas: 8n },
        { type: 2, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
        { type: 2, maxFeePerGas: 1128n, maxPriorityFeePerGas: 10n },
      ],
    ];
    for (const [previous, market, replacement] of cases)
      assert.deepEqual(bumpFees(previous, market), replacement);
  });
  it("never returns a tip above the fee cap: the fee is raised to the bumped tip", () => {
    const next = bumpFees(
      { type: 2, maxFeePerGas: 100n, maxPriorityFeePerGas: 100n },
      { type: 2, maxFeePerGas: 10n, maxPriorityFeePerGas: 500n },
    );
    assert.deepEqual(next, { type: 2, maxFeePerGas: 500n, maxPriorityFeePerGas: 500n });
  });

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

describe("fee caps: what a write reserves and what an attempt may pay", () => {
  it("reservedFeeCap returns twice the quote's fee cap when there is no operator ceiling", () => {
    assert.equal(
      reservedFeeCap({ maxFeePerGas: 7n * GWEI, maxPriorityFeePerGas: GWEI }, undefined),
      14n * GWEI,
    );
  });
  it("reservedFeeCap returns the operator ceiling when it is below twice the quote", () => {
    const quote = { maxFeePerGas: 7n * GWEI, maxPriorityFeePerGas: GWEI };
    assert.equal(reservedFeeCap(quote, 10n * GWEI), 10n * GWEI);
    assert.equal(reservedFeeCap(quote, 20n * GWEI), 14n * GWEI);
  });
  it("reservedFeeCap returns 0 on free gas, whatever the ceiling", () => {
    assert.equal(reservedFeeCap({ type: 2, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }, GWEI), 0n);
  });
  it("feeCapOf returns the operator ceiling for a row that reserved nothing", () => {
    assert.equal(feeCapOf({ feeCap: null }, 50n), 50n);
    assert.equal(feeCapOf({ feeCap: "30" }, 50n), 30n);
  });
  it("capFees keeps a quote already under the cap and reads a quote without a type as type 2", () => {
    assert.deepEqual(capFees({ maxFeePerGas: 40n, maxPriorityFeePerGas: 3n }, 50n), {
      type: 2,
      maxFeePerGas: 40n,
      maxPriorityFeePerGas: 3n,
    });
  });
});

describe("nextFees: re-pricing a stuck attempt", () => {
  it("returns the new quote, capped, when the node's fee model changed since the last attempt", () => {
    assert.deepEqual(
      nextFees(
        { type: 0, maxFeePerGas: 1_000n, maxPriorityFeePerGas: 1_000n },
        { type: 2, maxFeePerGas: 3_000n, maxPriorityFeePerGas: 100n },
        2_000n,
      ),
      { kind: "bump", fees: { type: 2, maxFeePerGas: 2_000n, maxPriorityFeePerGas: 100n } },
    );
  });
  it("goes up to the cap when the market asks for more, while that is still a 12.5% bump", () => {
    const previous: FeeQuote = { type: 2, maxFeePerGas: 1_000n, maxPriorityFeePerGas: 10n };
    const market: FeeQuote = { type: 2, maxFeePerGas: 5_000n, maxPriorityFeePerGas: 100n };
    assert.deepEqual(nextFees(previous, market, 2_000n), {
      kind: "bump",
      fees: { type: 2, maxFeePerGas: 2_000n, maxPriorityFeePerGas: 100n },
    });
    // A tip above the cap is lowered to it with the fee.
    const dearTip: FeeQuote = { type: 2, maxFeePerGas: 5_000n, maxPriorityFeePerGas: 3_000n };
    assert.deepEqual(nextFees(previous, dearTip, 2_000n), {
      kind: "bump",
      fees: { type: 2, maxFeePerGas: 2_000n, maxPriorityFeePerGas: 2_000n },
    });
    assert.deepEqual(nextFees(previous, market, 1_125n), { kind: "at-cap" });
  });
  it("returns at-cap when the bumped fee is one wei above the cap, and bumps when it equals it", () => {
    const previous: FeeQuote = { type: 2, maxFeePerGas: 1_000n, maxPriorityFeePerGas: 10n };
    const market: FeeQuote = { type: 2, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n };
    assert.deepEqual(nextFees(previous, market, 1_125n), { kind: "at-cap" });
    assert.deepEqual(nextFees(previous, market, 1_126n), {
      kind: "bump",
      fees: { type: 2, maxFeePerGas: 1_126n, maxPriorityFeePerGas: 13n },
    });
  });
});

describe("attempts and transactions: the fields for either model", () => {
  const signed = { hash: "0x" + "ab".repeat(32), raw: "0x02f8" };

  it("attemptOf records the fees as decimal strings, and feesOf returns the same quote from it", () => {
    for (const fees of [
      { type: 2 as const, maxFeePerGas: 3n * GWEI, maxPriorityFeePerGas: GWEI },
      { type: 0 as const, maxFeePerGas: 5n * GWEI, maxPriorityFeePerGas: 5n * GWEI },
    ]) {
      const attempt = attemptOf(signed, fees, 7);
      assert.equal(attempt.hash, signed.hash);
      assert.equal(attempt.raw, signed.raw);
      assert.equal(attempt.nonce, 7);
      assert.equal(attempt.maxFeePerGas, fees.maxFeePerGas.toString());
      assert.ok(!Number.isNaN(Date.parse(attempt.sentAt)));
      assert.deepEqual(feesOf(attempt), fees);
    }
  });
  it("feesOf reads an attempt recorded before types as type 2", () => {
    assert.deepEqual(
      feesOf({ hash: "0x1", maxFeePerGas: "9", maxPriorityFeePerGas: "2", sentAt: "" }),
      { type: 2, maxFeePerGas: 9n, maxPriorityFeePerGas: 2n },
    );
  });
  it("unsignedTx sends a row without a recipient to its own sender, with empty data and 21000 gas by default", () => {
    const tx = unsignedTx(
      { toAddress: null, fromAddress: "0xfrom", data: null, value: "5", gasLimit: null },
      3,
      { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n },
      1236,
    );
    assert.deepEqual(tx, {
      chainId: 1236,
      nonce: 3,
      to: "0xfrom",
      data: "0x",
      value: 5n,
      gasLimit: 21_000n,
      type: 2,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    });
  });
  it("unsignedTx returns a type 0 transaction for legacy fees, the row's own fields otherwise", () => {
    const tx = unsignedTx(
      { toAddress: "0xto", fromAddress: "0xfrom", data: "0x01", value: "0", gasLimit: "90000" },
      0,
      { type: 0, maxFeePerGas: 4n, maxPriorityFeePerGas: 4n },
      1236,
    );
    assert.equal(tx.type, 0);
    assert.equal(tx.to, "0xto");
    assert.equal(tx.data, "0x01");
    assert.equal(tx.gasLimit, 90_000n);
  });
});

describe("cancelFees: the fees of a self-transfer that cancels a sent write", () => {
  const gwei = 1_000_000_000n;
  const last: FeeQuote = { type: 2, maxFeePerGas: 2n * gwei, maxPriorityFeePerGas: gwei };

  it("outbids the newest attempt by at least the pool's replacement bump, and is never below the quote", () => {
    const calm = cancelFees(
      last,
      { type: 2, maxFeePerGas: gwei, maxPriorityFeePerGas: gwei },
      undefined,
    )!;
    assert.ok(calm.maxFeePerGas * 1000n >= last.maxFeePerGas * 1125n);
    assert.ok(calm.maxPriorityFeePerGas * 1000n >= last.maxPriorityFeePerGas * 1125n);
    // After a base-fee spike, the quote for the next block wins.
    const spike = { type: 2 as const, maxFeePerGas: 4_001n * gwei, maxPriorityFeePerGas: gwei };
    assert.equal(cancelFees(last, spike, undefined)!.maxFeePerGas, spike.maxFeePerGas);
  });

  it("stays within the operator's ceiling, and gives up when the ceiling leaves no room for the bump", () => {
    const spike = { type: 2 as const, maxFeePerGas: 4_001n * gwei, maxPriorityFeePerGas: gwei };
    const capped = cancelFees(last, spike, 10n * gwei)!;
    assert.equal(capped.maxFeePerGas, 10n * gwei);
    assert.ok(capped.maxPriorityFeePerGas <= capped.maxFeePerGas);
    assert.equal(cancelFees(last, spike, 2n * gwei), undefined);
  });

  it("gives up on a chain without fees: a higher fee cannot replace anything there", () => {
    const free: FeeQuote = { type: 0, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n };
    assert.equal(cancelFees(free, free, undefined), undefined);
  });
});
