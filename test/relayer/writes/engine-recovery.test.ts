import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther, parseUnits, toBeHex } from "ethers";
import { WRITE_LIMITS } from "../../../relayer/src/writes/limits.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack, waitForStatus } from "./helpers.js";

// Transactions the chain has not mined yet: anvil's automine is switched off while a test holds a
// write in the pool, and back on (or a block is mined by hand) to let it through.

interface RpcTx {
  hash: string;
  nonce: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

describe("transaction engine recovery (anvil with automine switched off + PostgreSQL)", () => {
  let stack: WriteStack;

  // Re-price after 600 ms without a receipt (production: 15 s).
  before(async () => (stack = await startWriteStack({}, { sequencer: { stuckAfterMs: 600 } })));
  after(() => stack?.stop());

  const status = async (org: TestOrg, id: string) =>
    (await org.api("GET", `/api/v1/transactions/${id}`)).body;
  const issueAsync = async (org: TestOrg, name: string) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name }),
      headers: { Prefer: "respond-async" },
    });
    assert.equal(res.status, 202, res.text);
    return res.body.transactionId as string;
  };
  const nonceOf = async (address: string, tag = "latest") =>
    Number(await stack.rpc<string>("eth_getTransactionCount", [address, tag]));
  /** A new organization and its wallet's nonce before any write. */
  const newOrg = async () => {
    const org = await stack.registerOrg();
    return { org, before: await nonceOf(org.walletAddress) };
  };

  it("a transaction stuck in the pool is re-priced on the same nonce, both fees bumped, and confirms once", async () => {
    const { org, before } = await newOrg();
    await stack.withoutAutomine(async () => {
      const id = await issueAsync(org, "Stuck");
      const pending = await waitForStatus(org, id, (b) => (b.hashes as string[]).length >= 3);
      const attempts = await Promise.all(
        (pending.hashes as string[]).map((h) =>
          stack.rpc<RpcTx | null>("eth_getTransactionByHash", [h]),
        ),
      );
      // Only the newest attempt is kept by the node's pool; the engine has the earlier ones.
      const known = attempts.filter((a): a is RpcTx => a !== null);
      assert.ok(known.length >= 1);
      const rows = await stack.database.pool.query<{ attempts: Array<Record<string, string>> }>(
        "SELECT attempts FROM transactions WHERE id = $1",
        [id],
      );
      const recorded = rows.rows[0]!.attempts;
      assert.equal(recorded.length, (pending.hashes as string[]).length);
      for (let i = 1; i < recorded.length; i++) {
        const [prev, next] = [recorded[i - 1]!, recorded[i]!];
        // Each replacement outbids the previous attempt by at least 12.5% on both caps.
        assert.ok(
          BigInt(next.maxFeePerGas!) * 1000n >= BigInt(prev.maxFeePerGas!) * 1125n,
          `maxFeePerGas ${prev.maxFeePerGas} -> ${next.maxFeePerGas}`,
        );
        assert.ok(
          BigInt(next.maxPriorityFeePerGas!) * 1000n >= BigInt(prev.maxPriorityFeePerGas!) * 1125n,
          `maxPriorityFeePerGas ${prev.maxPriorityFeePerGas} -> ${next.maxPriorityFeePerGas}`,
        );
      }
      // Every attempt used the same nonce: the one the row holds.
      for (const a of known) assert.equal(Number(BigInt(a.nonce)), pending.nonce);
      assert.equal(pending.nonce, before);

      await stack.automine(true);
      await stack.rpc("evm_mine");
      const done = await waitForStatus(org, id, (b) => b.status === "confirmed");
      const receipt = done.receipt as { hash: string };
      assert.ok((done.hashes as string[]).includes(receipt.hash));
      const tokenId = (done.result as { tokenId: string }).tokenId;
      assert.equal(await stack.token.getFunction("ownerOf")(tokenId), org.walletAddress);
      // One nonce consumed, nothing left pending for the wallet.
      assert.equal(await nonceOf(org.walletAddress), before + 1);
      assert.equal(await nonceOf(org.walletAddress, "pending"), before + 1);
    });
  });

  it("a nonce taken by another transaction of the wallet is detected and the write goes through on a new nonce", async () => {
    const { org, before } = await newOrg();
    await stack.withoutAutomine(async () => {
      const id = await issueAsync(org, "Overtaken");
      const sent = await waitForStatus(org, id, (b) => (b.hashes as string[]).length >= 1);
      assert.equal(sent.nonce, before);
      // Somebody else signs for the wallet at the same nonce and outbids us (as an operator with
      // the key, or a second system sharing it, could): anvil impersonation stands in for them.
      await stack.rpc("anvil_impersonateAccount", [org.walletAddress]);
      const intruder = await stack.rpc<string>("eth_sendTransaction", [
        {
          from: org.walletAddress,
          to: org.walletAddress,
          value: "0x0",
          nonce: toBeHex(before),
          gas: toBeHex(21_000),
          maxFeePerGas: toBeHex(parseUnits("1000", "gwei")),
          maxPriorityFeePerGas: toBeHex(parseUnits("1000", "gwei")),
        },
      ]);
      await stack.rpc("anvil_stopImpersonatingAccount", [org.walletAddress]);
      await stack.rpc("evm_mine");
      const intruderReceipt = await stack.provider.getTransactionReceipt(intruder);
      assert.equal(intruderReceipt?.status, 1);
      await stack.automine(true);

      const done = await waitForStatus(org, id, (b) => b.status === "confirmed");
      assert.equal(done.nonce, before + 1, "the write was re-queued onto the next nonce");
      const receipt = done.receipt as { hash: string };
      assert.notEqual(receipt.hash, intruder);
      const mined = await stack.provider.getTransaction(receipt.hash);
      assert.equal(mined?.nonce, before + 1);
      const tokenId = (done.result as { tokenId: string }).tokenId;
      assert.equal(await stack.token.getFunction("ownerOf")(tokenId), org.walletAddress);
      assert.match(
        stack.logText(),
        /nonce taken by another transaction \(proven from its block\); re-queueing/,
      );

      // The wallet is not wedged: the next write goes straight through.
      const next = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
      assert.equal(next.status, 200, next.text);
      assert.equal(await nonceOf(org.walletAddress), before + 3);
    });
  });

  it("a nonce whose transaction the node refuses for good is filled by a self-transfer and the row is marked replaced", async () => {
    const org = await stack.registerOrg();
    await stack.rpc("anvil_setBalance", [org.walletAddress, toBeHex(parseEther("100"))]);
    const start = await nonceOf(org.walletAddress);
    await stack.withoutAutomine(async () => {
      // Ten writes hold the org's ten in-flight slots, so the batch below waits in the queue.
      const holders = await Promise.all(
        Array.from({ length: 10 }, (_, i) => issueAsync(org, `Holder ${i}`)),
      );
      for (const id of holders) await waitForStatus(org, id, (b) => b.status === "sent");
      const res = await org.api("POST", "/api/v1/write/batch-issue", {
        body: {
          assets: [
            assetBody({ name: "Too dear", stakedAmount: "8" }),
            assetBody({ name: "Affordable" }),
          ],
        },
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const batchId = res.body.transactionId as string;
      assert.equal((await status(org, batchId)).status, "queued");
      // The money leaves the wallet after the batch was accepted: its first item can no longer
      // be paid when it is broadcast, after its second item already holds the next nonce.
      await stack.rpc("anvil_setBalance", [org.walletAddress, toBeHex(parseEther("5"))]);
      await stack.automine(true);
      await stack.rpc("evm_mine");

      const done = await waitForStatus(
        org,
        batchId,
        (b) => b.status === "confirmed" || b.status === "failed",
        30_000,
      );
      const result = done.result as {
        issued: number;
        failed: number;
        results: Array<{ index: number; success: boolean; tokenId?: string; error?: string }>;
      };
      assert.equal(result.issued, 1);
      assert.equal(result.failed, 1);
      assert.equal(result.results[0]!.success, false);
      assert.equal(
        result.results[0]!.error,
        "Transaction failed: Insufficient funds for gas and value",
      );
      assert.equal(result.results[1]!.success, true);
      assert.equal(
        await stack.token.getFunction("ownerOf")(result.results[1]!.tokenId!),
        org.walletAddress,
      );

      // The filler is mined before the affordable item (lower nonce); its own job records the
      // receipt on its next poll, so read the rows once the filler row is final.
      const fillerFinal = async () =>
        (
          await stack.database.pool.query(
            "SELECT 1 FROM transactions WHERE org_id = $1 AND kind = 'nonce-fill' AND state IN ('confirmed', 'mined', 'failed', 'replaced')",
            [org.orgId],
          )
        ).rowCount === 1;
      for (let i = 0; i < 100 && !(await fillerFinal()); i++)
        await new Promise((r) => setTimeout(r, 100));
      const { rows } = await stack.database.pool.query<{
        id: string;
        kind: string;
        state: string;
        nonce: number;
        context: { fills?: string };
      }>(
        "SELECT id, kind, state, nonce::int AS nonce, context FROM transactions WHERE org_id = $1 AND (parent_id = $2 OR kind = 'nonce-fill') ORDER BY nonce, kind = 'nonce-fill'",
        [org.orgId, batchId],
      );
      const [refused, filler, affordable] = rows;
      assert.equal(rows.length, 3, JSON.stringify(rows));
      assert.equal(refused!.state, "replaced");
      assert.equal(filler!.kind, "nonce-fill");
      assert.equal(filler!.context.fills, refused!.id);
      assert.equal(filler!.nonce, refused!.nonce);
      assert.equal(filler!.state, "confirmed");
      assert.equal(affordable!.nonce, refused!.nonce + 1);
      assert.equal(affordable!.state, "confirmed");
      // No gap is left behind: 10 holders + filler + one issuance, nothing pending.
      for (const id of holders) assert.equal((await status(org, id)).status, "confirmed");
      assert.equal(await nonceOf(org.walletAddress), start + 12);
      assert.equal(await nonceOf(org.walletAddress, "pending"), start + 12);
    });
  });

  it(`answers 429 once ${WRITE_LIMITS.maxQueuedPerOrg} writes of an organization are waiting, and other organizations still write`, async () => {
    const busy = await stack.registerOrg();
    const other = await stack.registerOrg();
    // Enough for every queued stake and its gas.
    await stack.rpc("anvil_setBalance", [busy.walletAddress, toBeHex(parseEther("1000"))]);
    await stack.withoutAutomine(async () => {
      const limit = WRITE_LIMITS.maxQueuedPerOrg;
      const ids: string[] = [];
      for (let i = 0; i < limit; i += 25) {
        const chunk = await Promise.all(
          Array.from({ length: Math.min(25, limit - i) }, (_, j) => issueAsync(busy, `Q${i + j}`)),
        );
        ids.push(...chunk);
      }
      assert.equal(new Set(ids).size, limit);
      const refused = await busy.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.error, "Too many queued write transactions for this organization");
      assert.ok(Number(refused.headers.get("retry-after")) >= 1);
      // Another org is not held up by the busy one's queue.
      const otherId = await issueAsync(other, "Other org");
      await stack.automine(true);
      await stack.rpc("evm_mine");
      const done = await waitForStatus(other, otherId, (b) => b.status === "confirmed", 30_000);
      assert.equal(done.status, "confirmed");
    });
  });
});
