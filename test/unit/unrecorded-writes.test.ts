import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UnrecordedWrites } from "../../relayer/src/engine/unrecorded-writes.js";

describe("UnrecordedWrites: the writes of an org whose statements are running", () => {
  it("a held write is listed for its org until it is let go, and never for another org", () => {
    const ledger = new UnrecordedWrites();
    const releaseA = ledger.hold("org-a", "tx_1", 5n);
    const releaseB = ledger.hold("org-a", "tx_2", 7n);
    assert.deepEqual(ledger.held("org-a"), [
      { id: "tx_1", wei: 5n },
      { id: "tx_2", wei: 7n },
    ]);
    assert.deepEqual(ledger.held("org-b"), []);
    releaseA();
    assert.deepEqual(ledger.held("org-a"), [{ id: "tx_2", wei: 7n }]);
    releaseA(); // idempotent
    releaseB();
    assert.deepEqual(ledger.held("org-a"), []);
  });

  it("a write held again after its org's ledger emptied is listed", () => {
    const ledger = new UnrecordedWrites();
    const release = ledger.hold("org-a", "tx_1", 1n);
    release();
    const again = ledger.hold("org-a", "tx_3", 2n);
    release(); // a stale release does not drop the new ledger
    assert.deepEqual(ledger.held("org-a"), [{ id: "tx_3", wei: 2n }]);
    again();
  });
});
