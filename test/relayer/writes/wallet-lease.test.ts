import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { DEFAULT_SEQUENCER_OPTIONS } from "../../../relayer/src/engine/sequencer.js";
import { eventually } from "../../support/eventually.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "./helpers.js";

/**
 * A wallet whose queue empties keeps its lease for `idleReleaseMs` (3 s) before giving it back:
 * an organization writing every second or so is not released and claimed again (two statements
 * and two commits) between every two writes. Real anvil (automine) and PostgreSQL.
 */
describe("an idle wallet's lease is kept a while, then given back", () => {
  let stack: WriteStack;
  let org: TestOrg;

  before(async () => {
    stack = await startWriteStack();
    org = await stack.registerOrg();
  });
  after(() => stack?.stop());

  const lease = async () =>
    (
      await stack.database.pool.query<{ lease_owner: string | null; lease_until: Date | null }>(
        "SELECT lease_owner, lease_until FROM wallets WHERE address = $1",
        [org.walletAddress],
      )
    ).rows[0]!;
  const issue = async (name: string) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name }),
      headers: { Prefer: "respond-async" },
    });
    assert.equal(res.status, 202, res.text);
    await waitForStatus(org, String(res.body.transactionId), (b) => b.status === "confirmed");
  };

  it("is held through a pause shorter than idleReleaseMs, renewed, and released after it", async () => {
    assert.equal(DEFAULT_SEQUENCER_OPTIONS.idleReleaseMs, 3_000);
    await issue("First");
    const idleAt = Date.now();
    const held = await lease();
    assert.ok(held.lease_owner !== null, "held right after its queue emptied");
    await sleep(1_200);
    const later = await lease();
    // Still this process's, and renewed by the claim round meanwhile (each second).
    if (Date.now() - idleAt < DEFAULT_SEQUENCER_OPTIONS.idleReleaseMs) {
      assert.equal(later.lease_owner, held.lease_owner, "kept while idle for less than 3 s");
      assert.ok(later.lease_until! > held.lease_until!, "renewed while kept");
    }
    // A write that comes while the wallet is kept is sent by the same holder.
    await issue("Second");
    assert.equal((await lease()).lease_owner, held.lease_owner);
    const secondAt = Date.now();
    await eventually(async () => assert.equal((await lease()).lease_owner, null), 15_000, 100);
    assert.ok(
      Date.now() - secondAt >= DEFAULT_SEQUENCER_OPTIONS.idleReleaseMs - 500,
      "not given back before it had been idle for about idleReleaseMs",
    );
    // A write after the release claims the wallet again and is mined.
    await issue("Third");
  });
});
