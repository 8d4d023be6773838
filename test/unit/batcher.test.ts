import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Batcher } from "../../relayer/src/db/batcher.js";

describe("Batcher", () => {
  it("calls made in one turn share one run; a later turn gets its own", async () => {
    const runs: number[][] = [];
    const batcher = new Batcher((items: readonly number[]) => {
      runs.push([...items]);
      return Promise.resolve(items.map((n) => n * 10));
    });
    assert.deepEqual(
      await Promise.all([batcher.add(1), batcher.add(2), batcher.add(3)]),
      [10, 20, 30],
    );
    assert.equal(await batcher.add(4), 40);
    assert.deepEqual(runs, [[1, 2, 3], [4]]);
  });

  it("an Error in an item's place fails that item alone; a thrown run fails them all", async () => {
    const partial = new Batcher((items: readonly number[]) =>
      Promise.resolve(items.map((n) => (n === 2 ? new Error("bad item") : n))),
    );
    const outcomes = await Promise.allSettled([partial.add(1), partial.add(2), partial.add(3)]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
    const failing = new Batcher(
      (): Promise<number[]> => Promise.reject(new Error("database down")),
    );
    const all = await Promise.allSettled([failing.add(1), failing.add(2)]);
    assert.ok(all.every((o) => o.status === "rejected" && /database down/.test(String(o.reason))));
  });
});
