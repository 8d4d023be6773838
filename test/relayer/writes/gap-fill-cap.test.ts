import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther, toBeHex } from "ethers";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack, waitForStatus } from "./helpers.js";

// A gap is provoked as in engine-recovery.test.ts: a batch waits in the queue behind a write that
// holds the org's in-flight slot (automine off), the wallet's money leaves after the batch was
// accepted, so its first item is refused for good while its second holds the next nonce.

describe("nonce gap fills are capped per wallet (anvil + PostgreSQL)", () => {
  let stack: WriteStack;

  before(async () => {
    // One fill per wallet per hour; one in-flight write per org, so one holder keeps a batch
    // queued; re-pricing after 1 s without a receipt (production: 15 s).
    stack = await startWriteStack(
      {},
      { sequencer: { maxFillsPerHour: 1, maxInFlightPerOrg: 1, stuckAfterMs: 1_000 } },
    );
  });
  after(async () => {
    await stack?.stop();
  });

  const automine = (on: boolean) => stack.rpc("evm_setAutomine", [on]);
  const status = async (org: TestOrg, id: string) =>
    (await org.api("GET", `/api/v1/transactions/${id}`)).body;
  /** A batch item's row (items have no transaction id of their own in the API). */
  const row = async (id: string) =>
    (
      await stack.database.pool.query<{ state: string; nonce: number | null }>(
        "SELECT state, nonce::int AS nonce FROM transactions WHERE id = $1",
        [id],
      )
    ).rows[0]!;
  // Straight to the node: ethers' provider answers a repeated getTransactionCount from a 250 ms
  // cache, which can hide a nonce that moved just now.
  const nonceOf = async (address: string, tag = "latest") =>
    Number(await stack.rpc<string>("eth_getTransactionCount", [address, tag]));
  const fillMetrics = async () => {
    const res = await stack.api("GET", "/metrics", { adminToken: stack.adminToken });
    assert.equal(res.status, 200, res.text);
    const value = (reason: string) => {
      const m = res.text.match(
        new RegExp(`^rwa_nonce_gap_fills_total\\{reason="${reason}"\\} (\\d+)$`, "m"),
      );
      return m === null ? 0 : Number(m[1]);
    };
    return { refused: value("refused"), limit: value("limit") };
  };
  const countLines = (text: string) => stack.logs.filter((l) => l.includes(text)).length;
  const FILLING = "filling nonce gap with a self-transfer";
  const LIMIT = "nonce gap filler limit reached for this wallet";

  /**
   * Provokes one gap for the org's wallet: returns the batch's row ids in nonce order (the refused
   * item, then the affordable one) once the refused one was handled.
   */
  async function provokeGap(org: TestOrg, label: string) {
    await stack.setBalance(org.walletAddress, "100");
    let batchId: string;
    await automine(false);
    try {
      const holder = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: `Holder ${label}` }),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(holder.status, 202, holder.text);
      await waitForStatus(org, holder.body.transactionId as string, (b) => b.status === "sent");
      const res = await org.api("POST", "/api/v1/write/batch-issue", {
        body: {
          assets: [
            assetBody({ name: `Too dear ${label}`, stakedAmount: "8" }),
            assetBody({ name: `Affordable ${label}` }),
          ],
        },
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      batchId = res.body.transactionId as string;
      assert.equal((await status(org, batchId)).status, "queued");
      await stack.rpc("anvil_setBalance", [org.walletAddress, toBeHex(parseEther("5"))]);
      await automine(true);
      await stack.rpc("evm_mine");
      await waitForStatus(
        org,
        holder.body.transactionId as string,
        (b) => b.status === "confirmed",
      );
    } finally {
      await automine(true);
    }
    // Wait until the refused item was handled: replaced by a filler, or left open with every
    // attempt refused.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { rows } = await stack.database.pool.query<{
        id: string;
        state: string;
        nonce: number | null;
        attempts: Array<{ refused?: string }>;
      }>(
        "SELECT id, state, nonce::int AS nonce, attempts FROM transactions WHERE parent_id = $1 ORDER BY nonce",
        [batchId],
      );
      const [first, second] = rows;
      const handled =
        first !== undefined &&
        second !== undefined &&
        first.nonce !== null &&
        second.nonce === first.nonce + 1 &&
        first.attempts.length > 0 &&
        first.attempts.every((a) => a.refused !== undefined);
      if (handled) return { batchId, refused: first, affordable: second };
      if (Date.now() > deadline) assert.fail(`gap ${label} not provoked: ${JSON.stringify(rows)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("fills the first gap of a wallet, not the second within the hour: that write waits for the operator to fund the wallet", async () => {
    const org = await stack.registerOrg();
    const before = await fillMetrics();

    // First gap: filled by a self-transfer, everything behind it goes through.
    const first = await provokeGap(org, "1");
    const firstDone = await waitForStatus(
      org,
      first.batchId,
      (b) => b.status === "confirmed" || b.status === "failed",
    );
    const firstResult = firstDone.result as { issued: number; failed: number };
    assert.equal(firstResult.issued, 1);
    assert.equal(firstResult.failed, 1);
    const fillers = async () =>
      (
        await stack.database.pool.query<{
          state: string;
          nonce: number;
          context: { fills: string };
        }>(
          "SELECT state, nonce::int AS nonce, context FROM transactions WHERE org_id = $1 AND kind = 'nonce-fill' ORDER BY nonce",
          [org.orgId],
        )
      ).rows;
    assert.equal((await row(first.refused.id)).state, "replaced");
    const [filler] = await fillers();
    assert.equal(filler?.context.fills, first.refused.id);
    assert.equal(filler?.nonce, first.refused.nonce);
    assert.equal(countLines(FILLING), 1);
    assert.equal(countLines(LIMIT), 0);
    const afterFirst = await fillMetrics();
    assert.equal(afterFirst.refused - before.refused, 1);
    assert.equal(afterFirst.limit - before.limit, 0);
    const settled = await nonceOf(org.walletAddress);
    assert.equal(await nonceOf(org.walletAddress, "pending"), settled, "nothing left pending");

    // Second gap in the same hour: past the cap, no filler; the write stays open (it may still be
    // mined once an operator funds the wallet) and the wallet's later nonces wait behind it.
    const second = await provokeGap(org, "2");
    await new Promise((r) => setTimeout(r, 1_000)); // a filler would have been sent by now
    assert.equal((await fillers()).length, 1, "no second filler");
    // Only the second holder was mined since: the chain stops at the unfilled nonce.
    const gap = settled + 1;
    assert.equal(await nonceOf(org.walletAddress), gap, "the gap is still open on chain");
    assert.deepEqual(await row(second.refused.id), { state: "sent", nonce: gap });
    assert.deepEqual(await row(second.affordable.id), { state: "sent", nonce: gap + 1 });
    assert.equal((await status(org, second.batchId)).status, "sent");

    const afterSecond = await fillMetrics();
    assert.equal(afterSecond.refused - before.refused, 1, "still one fill");
    assert.equal(afterSecond.limit - before.limit, 1, "one refusal by the limit");
    assert.equal(countLines(FILLING), 1);
    assert.equal(countLines(LIMIT), 1);
    const limitLine = JSON.parse(stack.logs.find((l) => l.includes(LIMIT))!) as Record<
      string,
      unknown
    >;
    assert.equal(limitLine.txId, second.refused.id);
    assert.equal(limitLine.nonce, gap);
    assert.equal(limitLine.fills, 1);

    // The open write keeps being re-priced (refused: the wallet still cannot pay) up to its fee
    // cap; that is one gap, counted and logged once.
    const atCap = (l: string) => l.includes("at its fee cap") && l.includes(second.refused.id);
    for (let i = 0; i < 300 && !stack.logs.some(atCap); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(stack.logs.some(atCap), "the refused write reached its fee cap");
    await new Promise((r) => setTimeout(r, 1_500)); // at least one re-sending at the cap
    const atCapMetrics = await fillMetrics();
    assert.equal(atCapMetrics.limit - before.limit, 1, "the gap is counted once");
    assert.equal(atCapMetrics.refused - before.refused, 1);
    assert.equal(countLines(LIMIT), 1, "the gap is logged once");
    assert.equal((await fillers()).length, 1);
    assert.equal(await nonceOf(org.walletAddress), gap);

    // The operator funds the wallet: the open write is mined on its nonce, the wallet moves on.
    await stack.rpc("anvil_setBalance", [org.walletAddress, toBeHex(parseEther("100"))]);
    const secondDone = await waitForStatus(
      org,
      second.batchId,
      (b) => b.status === "confirmed" || b.status === "failed",
    );
    const secondResult = secondDone.result as { issued: number; failed: number };
    assert.equal(secondResult.issued, 2, JSON.stringify(secondDone));
    assert.equal(secondResult.failed, 0);
    assert.deepEqual(await row(second.refused.id), { state: "confirmed", nonce: gap });
    assert.equal(await nonceOf(org.walletAddress), gap + 2);
    assert.equal(await nonceOf(org.walletAddress, "pending"), gap + 2);
    assert.equal((await fillers()).length, 1);
  });
});
