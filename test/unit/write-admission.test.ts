import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RateLimitError } from "../../relayer/src/errors.js";
import {
  chainCapacity,
  ReturnSchedule,
  WriteAdmission,
} from "../../relayer/src/writes/admission.js";

/** An admission with the given bounds; `live` is what the database count answers. */
function admission(bounds: {
  perOrg?: number;
  concurrency?: number;
  queueMax?: number;
  drainSeconds?: number;
}) {
  const state = { live: 0, counts: 0 };
  const gate = new WriteAdmission({
    perOrg: bounds.perOrg ?? 100,
    concurrency: () => bounds.concurrency ?? 100,
    queueMax: () => bounds.queueMax,
    countLive: () => {
      state.counts++;
      return Promise.resolve(state.live);
    },
    drainSeconds: () => bounds.drainSeconds ?? 10,
    syncDeadlineMs: () => 30_000,
  });
  return { gate, state };
}

/** The refusal `admit` throws, or undefined when it admits. */
function refusalOf(admit: () => unknown): RateLimitError | undefined {
  try {
    admit();
    return undefined;
  } catch (error) {
    assert.ok(error instanceof RateLimitError, String(error));
    return error;
  }
}

/** The refusal `enter` throws, or undefined when it admits. */
function refusal(gate: WriteAdmission, orgId: string): RateLimitError | undefined {
  return refusalOf(() => gate.enter(orgId));
}

describe("write admission (the accept path's bounds)", () => {
  it("refuses one organization's write over its own bound, and admits another organization's", () => {
    const { gate } = admission({ perOrg: 2 });
    const a = gate.enter("org-a");
    gate.enter("org-a");
    const refused = refusal(gate, "org-a");
    assert.equal(
      refused?.message,
      "Too many concurrent write requests for this organization (at most 2)",
    );
    assert.equal(refused?.retryAfterSeconds, 1);
    assert.equal(refusal(gate, "org-b"), undefined);
    a.release();
    a.release(); // once is enough: a second release frees nothing more
    assert.equal(refusal(gate, "org-a"), undefined);
    assert.equal(refusal(gate, "org-a")?.retryAfterSeconds, 1);
    assert.deepEqual(gate.refused, { org: 2, busy: 0, backlog: 0 });
  });

  it("refuses any write while the whole accept path is full, and admits again once one leaves", () => {
    const { gate } = admission({ concurrency: 2 });
    const first = gate.enter("org-a");
    gate.enter("org-b");
    assert.equal(gate.accepting, 2);
    assert.equal(
      refusal(gate, "org-c")?.message,
      "Service busy: too many write requests in progress",
    );
    first.release();
    assert.equal(refusal(gate, "org-c"), undefined);
    assert.equal(gate.refused.busy, 1);
  });

  it("a write that took its place on arrival keeps it through enter, and gives it back once", () => {
    const { gate } = admission({ concurrency: 2, perOrg: 1 });
    const arrival = gate.arrive();
    assert.equal(gate.accepting, 1);
    const ticket = gate.enter("org-a", arrival);
    assert.equal(gate.accepting, 1); // the same place, not a second one
    // Refused by its organization's bound after arriving: its place is the arrival's to give back.
    const second = gate.arrive();
    assert.equal(
      refusalOf(() => gate.enter("org-a", second))?.message,
      "Too many concurrent write requests for this organization (at most 1)",
    );
    assert.equal(gate.accepting, 2);
    second.release();
    ticket.release();
    arrival.release(); // the answer's end gives it back again: nothing more is freed
    assert.equal(gate.accepting, 0);
    gate.arrive();
    gate.arrive();
    assert.equal(
      refusalOf(() => gate.arrive())?.message,
      "Service busy: too many write requests in progress",
    );
  });

  it("counts recorded writes toward the backlog, and the database's count replaces them", async () => {
    const { gate, state } = admission({ queueMax: 3 });
    // A write that was not recorded (refused by a check, or an idempotent replay) does not count.
    const replay = gate.enter("org-a");
    replay.release();
    replay.countRecorded(false);
    for (let i = 0; i < 3; i++) {
      const ticket = gate.enter("org-a");
      ticket.release();
      ticket.countRecorded(true);
    }
    assert.equal(gate.live, 3);
    const refused = refusal(gate, "org-b");
    assert.equal(
      refused?.message,
      "Service busy: the write backlog is full; writes are accepted again as it drains",
    );
    assert.equal(refused?.retryAfterSeconds, 1);
    // The database says the backlog drained: the next count (at most a second old) admits again.
    state.live = 0;
    await new Promise((r) => setTimeout(r, 1_100));
    refusal(gate, "org-b"); // starts the count
    await new Promise((r) => setImmediate(r));
    assert.ok(state.counts >= 2);
    assert.equal(gate.live, 0);
    assert.equal(refusal(gate, "org-b"), undefined);
  });

  it("tells the writes refused together to come back spread out, at the pace the bound frees room", () => {
    // Busy: as many come back each second as the accept path holds at once (2 here).
    const busy = admission({ concurrency: 2 }).gate;
    busy.enter("org-a");
    busy.enter("org-b");
    const waits = Array.from({ length: 7 }, () => refusal(busy, "org-c")?.retryAfterSeconds);
    assert.deepEqual(waits, [1, 1, 2, 2, 3, 3, 4]);
    // Backlog: 20 writes drained in 10 s is 2 a second, told at most the 10 s of the whole drain.
    const { gate: full } = admission({ queueMax: 20, drainSeconds: 10 });
    for (let i = 0; i < 20; i++) full.enter("org-a").countRecorded(true);
    const backlog = Array.from({ length: 22 }, () => refusal(full, "org-b")?.retryAfterSeconds);
    assert.deepEqual(backlog.slice(0, 6), [1, 1, 2, 2, 3, 3]);
    assert.deepEqual(backlog.slice(-4), [10, 10, 10, 10]);
  });

  it("a return schedule books each second up to its room, from the shortest wait on", () => {
    const schedule = new ReturnSchedule();
    const now = 1_000_500;
    assert.deepEqual(
      [1, 2, 3, 4].map(() => schedule.book(now, 2, 1, 3)),
      [1, 1, 2, 2],
    );
    assert.equal(schedule.book(now, 2, 1, 3), 3); // every second before the longest is booked
    // A second later the booked second is the next one: its room is what is left of it.
    assert.equal(schedule.book(now + 1_000, 2, 1, 3), 2);
    // Seconds gone by are forgotten.
    assert.equal(schedule.book(now + 10_000, 2, 1, 3), 1);
  });

  it("without a backlog bound (not measured yet), admits whatever the count", () => {
    const { gate, state } = admission({});
    state.live = 1_000_000;
    assert.equal(refusal(gate, "org-a"), undefined);
  });

  it("the chain's capacity: its gas limit in writes, per block interval", () => {
    assert.equal(chainCapacity(30_000_000n, 1, 115_000n), 260);
    assert.equal(chainCapacity(30_000_000n, 2, 115_000n), 130);
    assert.equal(chainCapacity(30_000_000n, 0, 115_000n), Number.POSITIVE_INFINITY);
  });
});
