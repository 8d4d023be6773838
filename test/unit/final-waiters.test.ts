import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FinalWaiters } from "../../relayer/src/engine/final-waiters.js";

describe("FinalWaiters (synchronous writes waiting for their rows)", () => {
  test("a notification wakes the waiters of its row only; one sent before next() is kept", async () => {
    const waiters = new FinalWaiters(() => Promise.resolve(new Set<string>()), 60_000);
    const a = waiters.listen("a");
    const b = waiters.listen("b");
    waiters.notify("a"); // before anyone awaits: not lost
    assert.equal(await a.next(1_000), true);
    const bWoken = b.next(100);
    waiters.notify("a");
    assert.equal(await bWoken, false, "b timed out: a's notification is not b's");
    assert.equal(await a.next(1_000), true);
    a.close();
    b.close();
    assert.equal(waiters.size, 0);
    waiters.stop();
  });

  test("the shared safety read asks for every waited row in one call and wakes the final ones", async () => {
    const calls: string[][] = [];
    const waiters = new FinalWaiters((ids) => {
      calls.push([...ids].sort());
      return Promise.resolve(new Set(["y"]));
    }, 50);
    const x = waiters.listen("x");
    const y = waiters.listen("y");
    const y2 = waiters.listen("y");
    const [xWoken, yWoken, y2Woken] = await Promise.all([
      x.next(300),
      y.next(2_000),
      y2.next(2_000),
    ]);
    assert.deepEqual([xWoken, yWoken, y2Woken], [false, true, true]);
    assert.ok(calls.length >= 1);
    assert.deepEqual(calls[0], ["x", "y"], "one call for all waited rows");
    for (const s of [x, y, y2]) s.close();
    const before = calls.length;
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(calls.length, before, "no safety reads once nobody waits");
  });

  test("a failing safety read wakes nobody and the waits still time out", async () => {
    const waiters = new FinalWaiters(() => Promise.reject(new Error("database away")), 20);
    const s = waiters.listen("z");
    assert.equal(await s.next(120), false);
    s.close();
  });
});
