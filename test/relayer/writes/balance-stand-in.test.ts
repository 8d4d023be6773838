import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther, toBeHex } from "ethers";
import { eventually } from "../../support/eventually.js";
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

  const blocks = () => stack.ctx.tx.blocks;
  /** Sets the wallet's balance, mines it into a block, and waits for the relayer to see it. */
  const setBalance = async (coin: string) => {
    await stack.rpc("anvil_setBalance", [org.walletAddress, toBeHex(parseEther(coin))]);
    const before = blocks().head;
    await stack.rpc("evm_mine");
    await eventually(
      () => Promise.resolve(assert.ok(blocks().head > before, "the relayer sees the block")),
      10_000,
      20,
    );
    return blocks().head;
  };
  const issueAsync = (overrides: Record<string, unknown> = {}) =>
    org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody(overrides),
      headers: { Prefer: "respond-async" },
    });

  it("a write the last block's balance covers is answered without waiting for the head's", async () => {
    await setBalance("100");
    await stack.ctx.tx.head.balanceAt(org.walletAddress).head;
    await setBalance("100");
    const slow = proxy.addRule({
      method: "eth_getBalance",
      action: { kind: "delay", ms: 5_000 },
      times: 1,
    });
    const forwarded = proxy.forwarded("eth_getBalance");

    const res = await issueAsync({ name: "Stand-in" });
    assert.equal(res.status, 202, res.text);
    assert.equal(slow.hits, 1, "the head's balance was asked for");
    assert.equal(
      proxy.forwarded("eth_getBalance"),
      forwarded,
      "answered before the head's balance was even forwarded to the node",
    );
    // Mined and settled before the next test sets the balance.
    await waitForStatus(org, res.body.transactionId as string, (b) => b.status === "confirmed");
  });

  it("a refusal is decided on the head's balance: coin received in the new block is counted", async () => {
    // The wallet holds 1 coin at block `poor`; then 100 in the next block.
    const poor = await setBalance("1");
    assert.equal(
      (await stack.ctx.tx.head.balanceAt(org.walletAddress).head).value,
      parseEther("1"),
    );
    await setBalance("100");
    const slow = proxy.addRule({
      method: "eth_getBalance",
      action: { kind: "delay", ms: 1_000 },
      times: 1,
    });
    const look = stack.ctx.tx.head.balanceAt(org.walletAddress);
    assert.equal(look.floor, poor, "the head's read is slow: block `poor`'s balance stands in");
    assert.equal((await look.read).value, parseEther("1"));

    // A stake of 5 coin: more than the stand-in, less than the head's balance.
    const res = await issueAsync({ name: "Funded in the new block", stakedAmount: "5" });
    assert.equal(res.status, 202, res.text);
    assert.equal(slow.hits, 1);
    assert.equal((await look.head).value, parseEther("100"));

    // Short at the head too: refused, naming the head's balance less the 5 coin reserved.
    const refused = await issueAsync({ name: "Too dear", stakedAmount: "200" });
    assert.equal(refused.status, 400, refused.text);
    assert.match(
      refused.body.error as string,
      /^Insufficient funds: need 200\.\d+ COIN, wallet has 9\d\.\d+ COIN/,
    );
  });
});
