import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BlockCadence } from "../../relayer/src/chain/block-watcher.js";

const POLL_MS = 100;
const RTT_MS = 5;
/** The latest a poll every `POLL_MS` sees a head: a poll cycle (wait and round trip) and a round trip. */
const ON_TIME_MS = POLL_MS + 2 * RTT_MS;

/**
 * Follows a simulated chain whose block `k` is mined at `blockTimes[k]` (ms) the way the watcher
 * does: ask for the head (the node answers `rttMs` later with the newest block mined by the time
 * it was asked), observe it, wait `delay`. Returns how late each new head was seen after its
 * block was mined, and how many polls were made.
 */
function follow(blockTimes: number[], rttMs = RTT_MS): { lateness: number[]; polls: number } {
  const cadence = new BlockCadence(POLL_MS);
  const lateness: number[] = [];
  let seen = -1;
  let polls = 0;
  let t = 0;
  while (seen < blockTimes.length - 1) {
    polls++;
    let head = -1;
    while (head + 1 < blockTimes.length && blockTimes[head + 1]! <= t) head++;
    const answeredAt = t + rttMs;
    cadence.observe(head, answeredAt);
    if (head > seen) {
      // Every block up to the head is seen at once; each is late by its own age.
      for (let k = seen + 1; k <= head; k++) lateness.push(answeredAt - blockTimes[k]!);
      seen = head;
    }
    t = answeredAt + cadence.delay(answeredAt);
  }
  return { lateness, polls };
}

/** A deterministic pseudo-random sequence in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

describe("BlockCadence (when the block watcher asks for the head)", () => {
  test("polls every pollMs until five intervals between consecutive heads agree", () => {
    const cadence = new BlockCadence(POLL_MS);
    for (const [head, at] of [
      [1, 0],
      [2, 1_000],
      [3, 2_000],
      [4, 3_000],
      [5, 4_000],
    ] as const) {
      cadence.observe(head, at);
      assert.equal(cadence.delay(at), POLL_MS, `after head ${head}: four intervals at most`);
    }
    cadence.observe(6, 5_050);
    assert.equal(cadence.interval, 1_000);
    // Next head due about 6,050: first poll two polls before it.
    assert.equal(cadence.delay(5_060), 6_050 - 2 * POLL_MS - 5_060);
    // The same head read again does not count as an interval, and the wait runs down.
    cadence.observe(6, 5_900);
    assert.equal(cadence.interval, 1_000);
    assert.equal(cadence.delay(5_900), POLL_MS, "due: back to every pollMs");
  });

  test("an interval out of line, a skipped head or a head that went back polls every pollMs again", () => {
    const regular = () => {
      const cadence = new BlockCadence(POLL_MS);
      for (let head = 0; head <= 5; head++) cadence.observe(head, head * 2_000);
      assert.equal(cadence.interval, 2_000);
      return cadence;
    };
    const early = regular();
    early.observe(6, 10_500); // 500 ms after the last: out of line
    assert.equal(early.interval, undefined);
    assert.equal(early.delay(10_500), POLL_MS);

    const skipped = regular();
    skipped.observe(8, 12_000);
    assert.equal(skipped.interval, undefined);
    assert.equal(skipped.delay(12_000), POLL_MS);

    const back = regular();
    back.observe(4, 10_100);
    assert.equal(back.interval, undefined);
    assert.equal(back.delay(10_100), POLL_MS);
  });

  test("on 1 s blocks every head is seen as soon as with a poll every 100 ms, with about a third of the polls", () => {
    const jitter = random(7);
    const blocks = Array.from({ length: 120 }, (_, k) => 1_000 + k * 1_000 + jitter() * 40);
    const { lateness, polls } = follow(blocks);
    assert.equal(lateness.length, blocks.length, "every block seen");
    assert.ok(
      lateness.every((ms) => ms <= ON_TIME_MS),
      `each head within a poll and a round trip of its block (worst ${Math.max(...lateness)} ms)`,
    );
    const everyPoll = Math.ceil(blocks.at(-1)! / (POLL_MS + RTT_MS));
    assert.ok(polls < everyPoll / 2.5, `${polls} polls, against ${everyPoll} every 100 ms`);
  });

  test("on irregular blocks (a dev chain mining on demand) it keeps polling every pollMs", () => {
    const gap = random(11);
    const blocks: number[] = [];
    let t = 500;
    for (let k = 0; k < 200; k++) {
      t += 50 + gap() * 3_000;
      blocks.push(t);
    }
    const { lateness } = follow(blocks);
    assert.equal(lateness.length, blocks.length);
    assert.ok(
      lateness.every((ms) => ms <= ON_TIME_MS),
      `worst ${Math.max(...lateness)} ms after its block`,
    );
  });

  test("when a regular chain speeds up, only the blocks mined during one wait are seen late", () => {
    const blocks = [
      ...Array.from({ length: 20 }, (_, k) => 1_000 + k * 2_000), // 2 s blocks
      ...Array.from({ length: 20 }, (_, k) => 40_000 + 500 + k * 500), // then 0.5 s blocks
    ];
    const { lateness } = follow(blocks);
    const late = lateness.flatMap((ms, k) => (ms > ON_TIME_MS ? [k] : []));
    assert.deepEqual(late, [20], "the first fast block, found when the wait ended");
    assert.ok(lateness[20]! < 2_000 - 2 * POLL_MS);
  });
});
