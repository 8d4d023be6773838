import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TestOrg } from "../../support/stack.js";
import { newTxId } from "../../../relayer/src/engine/tx-ids.js";
import { assetBody, startWriteStackWithOrgs, waitForStatus, type WriteStack } from "./helpers.js";

// The funds check's reservations against the block the balance includes (TxStore.record,
// HeadReads.balanceAt), on a real anvil and PostgreSQL. A write mined after the balance's block
// may already be settled (by another process's engine) while its cost is not in that balance: it
// keeps its reservation, so its wei is never counted as available twice.

describe("funds check: reservations from the balance's block", () => {
  let stack: WriteStack;
  let org: TestOrg;

  before(async () => {
    [stack, org] = await startWriteStackWithOrgs(1);
  });
  after(() => stack?.stop());

  it("a settled write mined after the balance's block still counts as reserved", async () => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(res.status, 200, res.text);
    const { rows } = await stack.database.pool.query<{
      state: string;
      value: string;
      gas_limit: string;
      fee_cap: string;
      block: string;
    }>(
      `SELECT state, value, gas_limit, fee_cap, receipt->>'blockNumber' AS block
         FROM transactions WHERE id = $1`,
      [res.headers.get("x-transaction-id")],
    );
    const row = rows[0]!;
    assert.equal(row.state, "confirmed");
    const block = Number(row.block);
    const reservation = BigInt(row.value) + BigInt(row.gas_limit) * BigInt(row.fee_cap);
    assert.ok(reservation > 0n);

    // A write the wallet cannot afford (an empty balance) is refused, and the verdict tells what
    // the wallet's writes reserve against a balance known at each block.
    const store = stack.ctx.engine.store;
    const wallet = await store.walletOf(org.orgId);
    assert.ok(wallet);
    const reservedAt = async (balanceBlock: number | undefined) => {
      const verdict = await store.record(
        {
          wallet,
          rows: [
            {
              id: newTxId(),
              orgId: org.orgId,
              walletId: wallet.id,
              kind: "issue-asset",
              requestHash: "",
              fromAddress: wallet.address,
            },
          ],
          needWei: 1n,
          balance: { value: 0n, block: balanceBlock },
          held: [],
          maxLiveRoots: 1_000,
        },
        undefined,
      );
      assert.equal(verdict.outcome, "short");
      return verdict.outcome === "short" ? verdict : undefined;
    };
    const before = await reservedAt(block - 1);
    assert.equal(before?.reservedWei, reservation, "a balance from before its block: reserved");
    assert.equal(before?.liveRoots, 0, "it is not live: the queue bound does not count it");
    assert.equal((await reservedAt(block))?.reservedWei, 0n, "paid by then");
    assert.equal((await reservedAt(undefined))?.reservedWei, 0n, "no block given");
  });

  it("writes of one org checked at the same moment count each other: only the affordable ones pass", async () => {
    // 35 coin: three stakes of 10 and their gas, not four.
    // Counted from the next block the relayer sees (a balance is read once per block).
    await stack.setBalance(org.walletAddress, "35");
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        org.api("POST", "/api/v1/write/issue-asset", {
          body: assetBody({ name: `Stake ${i}`, stakedAmount: "10" }),
          headers: { Prefer: "respond-async" },
        }),
      ),
    );
    const accepted = answers.filter((res) => res.status === 202);
    const refused = answers.filter((res) => res.status === 400);
    assert.equal(accepted.length, 3, answers.map((res) => `${res.status} ${res.text}`).join("\n"));
    assert.equal(refused.length, 3);
    for (const res of refused)
      assert.match(res.body.error as string, /^Insufficient funds: need 10\./);
    for (const res of accepted) {
      const done = await waitForStatus(
        org,
        res.body.transactionId as string,
        (b) => b.status === "confirmed" || b.status === "failed",
      );
      assert.equal(done.status, "confirmed", JSON.stringify(done));
    }
  });
});
