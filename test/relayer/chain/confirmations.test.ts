import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TestOrg } from "../../support/stack.js";
import {
  assetBody,
  startWriteStackWithOrgs,
  waitForStatus,
  type WriteStack,
} from "../writes/helpers.js";

describe("confirmations (anvil, blocks mined by the test)", () => {
  let stack: WriteStack;
  let org: TestOrg;
  before(
    async () =>
      // One setting (config.confirmations, CONFIRMATIONS) for the engine and the indexer.
      ([stack, org] = await startWriteStackWithOrgs(1, { config: { confirmations: 2 } })),
  );
  after(() => stack?.stop());

  /** The outbox states of the webhook events of `txHash` (the indexer releases them). */
  const outboxStates = async (txHash: string) =>
    (
      await stack.database.pool.query<{ status: string }>(
        "SELECT status FROM webhook_events WHERE tx_hash = $1",
        [txHash],
      )
    ).rows.map((r) => r.status);
  /** Polls `probe` (up to ~5 s): the indexer follows the chain on its own schedule. */
  const eventually = async (probe: () => Promise<boolean>) => {
    for (let i = 0; i < 100 && !(await probe()); i++) await new Promise((r) => setTimeout(r, 50));
  };

  it("a write seen in a block is mined, and confirmed once two blocks stand above it", async () => {
    await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Two blocks deep" }),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      await waitForStatus(org, id, (b) => b.status === "sent");
      await stack.rpc("evm_mine");
      const mined = await waitForStatus(org, id, (b) => b.status === "mined");
      assert.equal(mined.result, null, "no answer before the confirmations");
      await stack.rpc("evm_mine");
      await new Promise((r) => setTimeout(r, 1_000));
      const stillMined = (await org.api("GET", `/api/v1/transactions/${id}`)).body;
      assert.equal(stillMined.status, "mined", "one block above is not enough");
      const txHash = (mined.receipt as { hash: string }).hash;
      assert.deepEqual(await outboxStates(txHash), ["pending"], "its webhook event waits too");
      await stack.rpc("evm_mine");
      const done = await waitForStatus(org, id, (b) => b.status === "confirmed");
      await eventually(async () => (await outboxStates(txHash))[0] === "released");
      assert.deepEqual(await outboxStates(txHash), ["released"], "released at the same depth");
      const tokenId = (done.result as { tokenId: string }).tokenId;
      assert.equal(await stack.token.getFunction("ownerOf")(tokenId), org.walletAddress);
      assert.equal(
        (done.receipt as { blockHash: string }).blockHash,
        mined.receipt && (mined.receipt as { blockHash: string }).blockHash,
      );
    });
  });

  it("a synchronous write answers only once confirmed", async () => {
    const answer = org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "Waits for two blocks" }),
    });
    // automine: the write's own block; the two blocks above it come from the test.
    let settled = false;
    void answer.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(settled, false, "no answer while the write has no confirmations");
    await stack.rpc("evm_mine");
    await stack.rpc("evm_mine");
    const res = await answer;
    assert.equal(res.status, 200, res.text);
    assert.equal(await stack.token.getFunction("ownerOf")(res.body.tokenId), org.walletAddress);
  });
});
