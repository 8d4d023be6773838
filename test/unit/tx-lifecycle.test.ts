import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  assertTransition,
  canTransition,
  IllegalTransitionError,
  isFinal,
  mayBeMined,
  REORG_REOPENS,
  sourcesOf,
  TX_STATES,
} from "../../relayer/src/engine/tx-lifecycle.js";

describe("transaction lifecycle", () => {
  it("has exactly five final states, which only a reorg reopens (back to sent)", () => {
    assert.deepEqual(
      TX_STATES.filter((s) => isFinal(s)),
      ["confirmed", "failed", "replaced", "cancelled", "expired"],
    );
    // A cancelled or expired write whose self-transfer's block a reorg dropped races again.
    for (const from of ["confirmed", "failed", "cancelled", "expired"] as const)
      assert.deepEqual(
        TX_STATES.filter((to) => canTransition(from, to)),
        ["sent"],
        `${from} leaves only for sent`,
      );
    for (const to of TX_STATES)
      assert.equal(canTransition("replaced", to), false, `replaced → ${to}`);
    assert.deepEqual([...REORG_REOPENS], ["mined", "confirmed", "failed", "cancelled", "expired"]);
  });

  it("a mined row waits for its confirmations, ends, or goes back to sent after a reorg", () => {
    assert.equal(isFinal("mined"), false);
    assert.deepEqual(
      TX_STATES.filter((to) => canTransition("mined", to)),
      ["sent", "confirmed", "failed", "cancelled", "expired"],
    );
  });

  it("a queued row is either sent (with its nonce), or fails, is cancelled or expires before any broadcast", () => {
    assert.deepEqual(
      TX_STATES.filter((to) => canTransition("queued", to)),
      ["sent", "failed", "cancelled", "expired"],
    );
    // A sent or mined row ends cancelled (or expired) only when the self-transfer sent to
    // cancel it (or sent at its deadline) was mined.
    assert.deepEqual(sourcesOf("cancelled"), ["queued", "sent", "mined"]);
    assert.deepEqual(sourcesOf("expired"), ["queued", "sent", "mined"]);
  });

  it("a sent row can be re-priced, re-queued when its nonce went elsewhere, or end", () => {
    assert.deepEqual(
      TX_STATES.filter((to) => canTransition("sent", to)),
      ["queued", "sent", "mined", "confirmed", "failed", "replaced", "cancelled", "expired"],
    );
    assert.deepEqual(sourcesOf("confirmed"), ["sent", "mined"]);
    assert.deepEqual(sourcesOf("replaced"), ["sent"]);
  });

  it("refuses an illegal move with a named error", () => {
    assert.throws(() => assertTransition("tx_1", "confirmed", "queued"), IllegalTransitionError);
    assert.throws(() => assertTransition("tx_1", "queued", "confirmed"), /queued → confirmed/);
    assert.doesNotThrow(() => assertTransition("tx_1", "sent", "confirmed"));
  });

  it("a row may still be mined while any attempt was not refused by the node", () => {
    const attempt = { hash: "0x1", maxFeePerGas: "2", maxPriorityFeePerGas: "1", sentAt: "" };
    assert.equal(mayBeMined([attempt]), true);
    assert.equal(mayBeMined([{ ...attempt, refused: "insufficient funds" }]), false);
    // The first attempt is in a pool; only the re-pricing was refused: still open.
    assert.equal(mayBeMined([attempt, { ...attempt, hash: "0x2", refused: "txpool full" }]), true);
    assert.equal(mayBeMined([]), false);
  });
});
