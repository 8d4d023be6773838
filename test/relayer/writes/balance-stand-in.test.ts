import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther } from "ethers";
import type { TestOrg } from "../../support/stack.js";
import type { RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import {
  assetBody,
  startWriteStackBehindProxy,
  waitForStatus,
  type ProxiedWriteStack,
} from "./helpers.js";

// The last block's balance standing in while the head's is slow (HeadReads.balanceAt), on a real
// anvil and PostgreSQL. The relayer reaches anvil through the fault proxy, which delays the
// head's eth_getBalance.

describe("funds check: the last block's balance stands in while the head's is slow", () => {
  let stack: ProxiedWriteStack;
  let proxy: RpcFaultProxy;
  let org: TestOrg;

  before(async () => {
    stack = await startWriteStackBehindProxy();
    proxy = stack.proxy;
    org = await stack.registerOrg();
  });
  after(() => stack?.stop());

  /** Sets the wallet's balance, mines it into a block, and waits for the relayer to see it. */
  const setBalance = (coin: string) => stack.setBalance(org.walletAddress, coin);
  const issueAsync = (overrides: Record<string, unknown> = {}) =>
    org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody(overrides),
      headers: { Prefer: "respond-async" },
    });

  /**
   * Delays the relayer's reads of the wallet's balance at `latest` (the head's reads: `HeadReads`
   * starts one as soon as the watcher sees a block, for a wallet asked about within the last
   * 5 s, so the rule is added before the block is mined; every such read is delayed until the
   * test removes the rule, so that one started again on a slow machine, once the first is a
   * second old, is slow too).
   */
  const slowHeadBalance = (ms: number) =>
    proxy.addRule({
      method: "eth_getBalance",
      action: { kind: "delay", ms },
      when: (params) =>
        String(params[0]).toLowerCase() === org.walletAddress.toLowerCase() &&
        params[1] === "latest",
    });

  /**
   * Sends a write while the head's balance reads take 30 s (`slowHeadBalance`, set up by the
   * caller), asserts it is answered before them, then mines and settles it before the next test
   * sets the balance. Automine is off while it is answered: its own block would start the next
   * head's reads.
   */
  const answeredBeforeTheHeadsRead = async (
    slow: ReturnType<typeof slowHeadBalance>,
    name: string,
    standIn: string,
  ) => {
    const asked = Date.now();
    const res = await stack.withoutAutomine(async () => {
      const answer = await issueAsync({ name });
      assert.equal(answer.status, 202, answer.text);
      assert.ok(slow.hits >= 1, "the head's balance was asked for");
      assert.ok(Date.now() - asked < 30_000, `answered on ${standIn}, not after the head's read`);
      return answer;
    });
    slow.remove();
    await stack.rpc("evm_mine");
    await waitForStatus(org, res.body.transactionId as string, (b) => b.status === "confirmed");
  };

  it("a write the last block's balance covers is answered without waiting for the head's", async () => {
    await setBalance("100");
    await stack.ctx.engine.head.balanceAt(org.walletAddress).head;
    const slow = slowHeadBalance(30_000);
    await setBalance("100");
    await answeredBeforeTheHeadsRead(slow, "Stand-in", "the last block's balance");
  });

  it("after a quiet spell, a balance read seconds ago stands in for the head's slow read", async () => {
    await setBalance("100");
    await stack.ctx.engine.head.balanceAt(org.walletAddress).head;
    // Longer than the 2 s a compliance view may stand in, and than the 1 s after which a
    // balance is read again; automine mines no block meanwhile, so no head's read is warmed.
    await new Promise((r) => setTimeout(r, 3_000));
    const slow = slowHeadBalance(30_000);
    await answeredBeforeTheHeadsRead(slow, "After a quiet spell", "the balance read 3 s before");
  });

  it("a refusal is decided on the head's balance: coin received in the new block is counted", async () => {
    // The wallet holds 1 coin at block `poor`; then 100 in the next block.
    const poor = await setBalance("1");
    assert.equal(
      (await stack.ctx.engine.head.balanceAt(org.walletAddress).head).value,
      parseEther("1"),
    );
    const slow = slowHeadBalance(3_000);
    await setBalance("100");
    const look = stack.ctx.engine.head.balanceAt(org.walletAddress);
    assert.equal(look.floor, poor, "the head's read is slow: block `poor`'s balance stands in");
    assert.equal((await look.read).value, parseEther("1"));

    // A stake of 5 coin: more than the stand-in, less than the head's balance.
    const res = await issueAsync({ name: "Funded in the new block", stakedAmount: "5" });
    assert.equal(res.status, 202, res.text);
    assert.ok(slow.hits >= 1);
    assert.equal((await look.head).value, parseEther("100"));
    slow.remove();

    // Short at the head too: refused, naming the head's balance less the 5 coin reserved.
    const refused = await issueAsync({ name: "Too dear", stakedAmount: "200" });
    assert.equal(refused.status, 400, refused.text);
    assert.match(
      refused.body.error as string,
      /^Insufficient funds: need 200\.\d+ COIN, wallet has 9\d\.\d+ COIN/,
    );
  });
});
