import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UnrecordedWrites } from "../../relayer/src/chain/unrecorded-writes.js";

describe("UnrecordedWrites: writes of one org checked at the same moment count each other", () => {
  it("a held write counts for every check of its org until it is recorded, and not for other orgs", () => {
    const ledger = new UnrecordedWrites();
    const first = ledger.open("org-a");
    const held = first.hold(5n);
    first.close();

    const second = ledger.open("org-a");
    assert.deepEqual(second.unrecorded(), { wei: 5n, roots: 1 });
    assert.deepEqual(ledger.open("org-b").unrecorded(), { wei: 0n, roots: 0 });
    held.recorded();
    assert.deepEqual(
      second.unrecorded(),
      { wei: 5n, roots: 1 },
      "opened before the record: its read may not have seen the rows",
    );
    assert.deepEqual(ledger.open("org-a").unrecorded(), { wei: 0n, roots: 0 }, "opened after");
    second.close();
  });

  it("a released write counts for nobody", () => {
    const ledger = new UnrecordedWrites();
    const check = ledger.open("org-a");
    const held = check.hold(7n);
    const other = ledger.open("org-a");
    assert.deepEqual(other.unrecorded(), { wei: 7n, roots: 1 });
    held.release();
    assert.deepEqual(other.unrecorded(), { wei: 0n, roots: 0 });
    check.close();
    other.close();
  });

  it("a recorded write is kept while a check opened before its record is open, then forgotten", () => {
    const ledger = new UnrecordedWrites();
    const old = ledger.open("org-a");
    const writer = ledger.open("org-a");
    const held = writer.hold(3n);
    writer.close();
    held.recorded();
    const newer = ledger.open("org-a");
    assert.deepEqual(old.unrecorded(), { wei: 3n, roots: 1 });
    assert.deepEqual(newer.unrecorded(), { wei: 0n, roots: 0 });
    old.close();
    old.close(); // idempotent
    assert.deepEqual(newer.unrecorded(), { wei: 0n, roots: 0 });
    newer.close();
    // Nothing left behind: a later check of the org starts from nothing.
    assert.deepEqual(ledger.open("org-a").unrecorded(), { wei: 0n, roots: 0 });
  });
});
