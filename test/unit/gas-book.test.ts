import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  decodeGasChange,
  encodeGasChange,
  GasBook,
  limitFromUsed,
  ranOutOfGas,
  shapeKey,
  type GasChange,
} from "../../relayer/src/engine/gas-book.js";

describe("gas book (learned gas per write shape)", () => {
  const mint = { kind: "issue-asset", to: "0xAbC", data: "0x12345678" + "00".repeat(96) };

  it("a shape is the kind, the contract, the function and the calldata length", () => {
    assert.equal(shapeKey(mint), shapeKey({ ...mint, to: "0xabc" }));
    assert.notEqual(shapeKey(mint), shapeKey({ ...mint, data: mint.data + "00".repeat(32) }));
    assert.notEqual(shapeKey(mint), shapeKey({ ...mint, data: "0x87654321" + "00".repeat(96) }));
    assert.notEqual(shapeKey(mint), shapeKey({ ...mint, kind: "transfer" }));
    assert.equal(shapeKey(mint), shapeKey({ ...mint, data: "0x12345678" + "11".repeat(96) }));
  });

  it("the limit is the margin over the most used, and at least one cold slot more", () => {
    assert.equal(limitFromUsed(200_000n, 25), 250_000n);
    assert.equal(limitFromUsed(42_000n, 25), 64_100n); // 25% is 10,500: the slot wins
  });

  it("remembers the most any receipt of a shape used, and forgets it after an out-of-gas", () => {
    const book = new GasBook(25);
    assert.equal(book.limitFor(mint), undefined);
    book.learn(mint, 137_000n);
    book.learn(mint, 154_000n);
    book.learn(mint, 120_000n);
    assert.equal(book.limitFor(mint), 192_500n);
    book.forget(mint);
    assert.equal(book.limitFor(mint), undefined);
  });

  it("out of gas: a failed receipt that used all its limit, or all but the 1/64 an inner call leaves", () => {
    assert.equal(ranOutOfGas(0, 52_100n, 52_100n), true);
    assert.equal(ranOutOfGas(0, 63_000n, 64_000n), true);
    assert.equal(ranOutOfGas(0, 40_000n, 64_000n), false, "a plain revert");
    assert.equal(ranOutOfGas(1, 64_000n, 64_000n), false, "succeeded");
    assert.equal(ranOutOfGas(0, 64_000n, null), false);
  });

  it("publishes what it learns and forgets, applies what others publish without echoing it", () => {
    const published: GasChange[] = [];
    const book = new GasBook(25, (change) => published.push(change));
    const other = new GasBook(25);
    const key = shapeKey(mint);
    book.learn(mint, 150_000n);
    book.learn(mint, 140_000n); // not a rise: nothing to tell
    book.forget(mint);
    book.forget(mint); // nothing left to forget
    assert.deepEqual(published, [
      { key, used: 150_000n },
      { key, used: undefined },
    ]);

    for (const change of published) {
      const decoded = decodeGasChange(encodeGasChange("host:12:ab", change));
      assert.deepEqual(decoded, { from: "host:12:ab", change });
    }
    other.apply({ key, used: 150_000n });
    assert.equal(other.limitFor(mint), 187_500n);
    other.apply({ key, used: 100_000n }); // a lower figure never lowers the limit
    assert.equal(other.limitFor(mint), 187_500n);
    other.apply({ key, used: undefined });
    assert.equal(other.limitFor(mint), undefined);
    assert.equal(published.length, 2, "applied changes are not published again");

    for (const bad of ["", "host 12", "host abc key", "host - ", "a b c d"])
      assert.equal(decodeGasChange(bad), undefined, bad);
  });
});
