import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { toQuantity } from "ethers";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { RoundRowsChangedError } from "../../../relayer/src/engine/leased-tx-writes.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "./helpers.js";
import type { TestOrg } from "../../support/stack.js";
import { ApiError, RwaClient } from "../../../relayer/sdk/index.js";
import { startReceiver, verifyDelivery, type Receiver } from "../webhooks/receiver.js";

const ASYNC = { Prefer: "respond-async" };

/**
 * `POST /api/v1/transactions/{id}/cancel` (docs/api-decisions.md "Cancelling a write"): a write
 * not sent yet ends `cancelled` at once; a sent one is raced by a self-transfer on its nonce and
 * the chain decides. Real anvil and PostgreSQL, the engine running with one write in flight per
 * organization, so that with mining paused a second write stays `queued` behind the first.
 */
describe("cancelling a write (anvil + PostgreSQL + engine)", () => {
  let stack: WriteStack;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let org: TestOrg;
  let other: TestOrg;
  let secret: string;

  const write = async (who: TestOrg, body = assetBody()) => {
    const res = await who.api("POST", "/api/v1/write/issue-asset", { body, headers: ASYNC });
    assert.equal(res.status, 202, res.text);
    return res.body.transactionId as string;
  };
  const cancel = (who: TestOrg, id: string, apiKey?: string) =>
    stack.api("POST", `/api/v1/transactions/${id}/cancel`, { apiKey: apiKey ?? who.apiKey });
  const row = async (id: string) =>
    (
      await stack.ctx.database.pool.query<{
        state: string;
        nonce: string | null;
        attempts: unknown[];
      }>("SELECT state, nonce, attempts FROM transactions WHERE id = $1", [id])
    ).rows[0]!;
  const nonceOf = async (who: TestOrg) =>
    Number(
      BigInt(await stack.rpc<string>("eth_getTransactionCount", [who.walletAddress, "latest"])),
    );

  /**
   * Runs `body` with mining paused and the org's one in-flight slot taken by a write in the pool
   * (`first`): every later write of the org stays queued until `body` returns; then it is mined.
   */
  async function behindOne<T>(who: TestOrg, body: (first: string) => Promise<T>): Promise<T> {
    return stack.withoutAutomine(async () => {
      const first = await write(who);
      try {
        await waitForStatus(who, first, (b) => b.status === "sent");
        return await body(first);
      } finally {
        await stack.rpc("evm_mine");
      }
    });
  }

  before(async () => {
    stack = await startWriteStack({}, { sequencer: { maxInFlightPerOrg: 1 } });
    receiver = await startReceiver();
    workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200, backoffMaxMs: 1_000 });
    [org, other] = await Promise.all([stack.registerOrg(), stack.registerOrg()]);
    const hook = await org.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/org"), events: ["transaction.cancelled"] },
    });
    assert.equal(hook.status, 200, hook.text);
    secret = hook.body.secret;
  });

  after(async () => {
    await workers?.stop();
    await stack?.stop();
    await receiver?.close();
  });

  it("a queued write ends cancelled at once: nothing is sent, its reserved funds are free, transaction.cancelled is pushed", async () => {
    const startNonce = await nonceOf(org);
    const { first, queued } = await behindOne(org, async (first) => {
      // 9.5 of the faucet's 10 reserved by a write that waits behind the first.
      const queued = await write(org, assetBody({ stakedAmount: "9.5" }));
      assert.equal((await row(queued)).state, "queued");
      const refused = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ stakedAmount: "5" }),
        headers: ASYNC,
      });
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.body.error, /^Insufficient funds: /);

      const res = await cancel(org, queued);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.transactionId, queued);
      assert.equal(res.body.status, "cancelled");
      assert.deepEqual(res.body.attempts, []);
      assert.equal(res.body.nonce, null);

      // Its reservation went with it: the same write now fits.
      const fits = await write(org, assetBody({ stakedAmount: "5" }));
      const again = await cancel(org, fits);
      assert.equal(again.body.status, "cancelled", again.text);
      return { first, queued };
    });
    await waitForStatus(org, first, (b) => b.status === "confirmed");
    // The engine went on after the first write: the cancelled one was never signed into a
    // round that was recorded, nor broadcast.
    const trailing = await write(org);
    await waitForStatus(org, trailing, (b) => b.status === "confirmed");
    const stored = await row(queued);
    assert.deepEqual([stored.state, stored.nonce, stored.attempts], ["cancelled", null, []]);
    assert.equal(await nonceOf(org), startNonce + 2, "only the first and the trailing write");
    const hashes = await stack.ctx.database.pool.query(
      "SELECT 1 FROM transaction_hashes WHERE transaction_id = $1",
      [queued],
    );
    assert.equal(hashes.rowCount, 0, "no attempt of it was ever recorded");

    await receiver.waitFor(
      () => receiver.accepted("/org").some((d) => d.json.data.transactionId === queued),
      20_000,
      "transaction.cancelled",
    );
    const pushed = receiver.accepted("/org").find((d) => d.json.data.transactionId === queued)!;
    verifyDelivery(pushed, secret);
    assert.equal(pushed.json.event, "transaction.cancelled");
    assert.deepEqual(pushed.json.data, {
      transactionId: queued,
      kind: "issue-asset",
      status: "cancelled",
      reason: "Transaction cancelled",
    });
    assert.equal(pushed.json.txHash, null);
    assert.equal(pushed.json.blockNumber, null);
  });

  it("cancelling twice answers the first's outcome (the SDK's cancelTransaction too); GET /api/v1/transactions/{id} says cancelled", async () => {
    const id = await behindOne(org, async () => {
      const queued = await write(org);
      const first = await cancel(org, queued);
      assert.equal(first.status, 200, first.text);
      const second = await cancel(org, queued);
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(
        { ...second.body, updatedAt: undefined },
        { ...first.body, updatedAt: undefined },
      );
      const client = new RwaClient({ apiKey: org.apiKey, baseUrl: stack.baseUrl });
      const third = await client.cancelTransaction(queued);
      assert.deepEqual([third.transactionId, third.status], [queued, "cancelled"]);
      return queued;
    });
    const read = await org.api("GET", `/api/v1/transactions/${id}`);
    assert.deepEqual(
      [read.body.status, read.body.error, read.body.errorStatus],
      ["cancelled", "Transaction cancelled", 409],
    );
  });

  it("a synchronous request waiting for a write that is cancelled answers 409 with the state", async () => {
    await behindOne(org, async () => {
      const waiting = org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
      // The synchronous write is recorded (queued behind the first) before it is cancelled.
      let queued: string | undefined;
      for (let i = 0; i < 200 && queued === undefined; i++) {
        const { rows } = await stack.ctx.database.pool.query<{ id: string }>(
          "SELECT id FROM transactions WHERE org_id = $1 AND state = 'queued' AND mode = 'sync'",
          [org.orgId],
        );
        queued = rows[0]?.id;
        if (queued === undefined) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(queued !== undefined, "the synchronous write was recorded");
      assert.equal((await cancel(org, queued)).status, 200);
      const answer = await waiting;
      assert.equal(answer.status, 409, answer.text);
      assert.deepEqual(answer.body, { error: "Transaction cancelled", status: "cancelled" });
      assert.equal(answer.headers.get("x-transaction-id"), queued);
    });
  });

  it("a final write answers 409 with its state, and is not changed", async () => {
    const done = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(done.status, 200, done.text);
    const id = done.headers.get("x-transaction-id")!;
    const res = await cancel(org, id);
    assert.equal(res.status, 409, res.text);
    assert.deepEqual(res.body, { error: "Transaction already confirmed", status: "confirmed" });
    const client = new RwaClient({ apiKey: org.apiKey, baseUrl: stack.baseUrl });
    const thrown = await client.cancelTransaction(id).then(
      () => assert.fail("cancelTransaction resolved for a confirmed write"),
      (error: unknown) => error,
    );
    assert.ok(thrown instanceof ApiError, String(thrown));
    assert.equal(thrown.status, 409);
    assert.equal((await row(id)).state, "confirmed");
  });

  /** The pool's pending transactions of `who`'s wallet, by nonce (anvil's `txpool_content`). */
  const pooled = async (who: TestOrg) => {
    const pool = await stack.rpc<{ pending: Record<string, Record<string, { hash: string }>> }>(
      "txpool_content",
    );
    const [, byNonce] =
      Object.entries(pool.pending).find(
        ([from]) => from.toLowerCase() === who.walletAddress.toLowerCase(),
      ) ?? [];
    return byNonce ?? {};
  };
  /** Waits until the write's cancelling self-transfer is recorded and in the pool. */
  const cancelInPool = async (id: string) => {
    const status = await waitForStatus(org, id, (b) => (b.attempts as unknown[]).length >= 2);
    const attempts = status.attempts as Array<{ hash: string; nonce: number }>;
    const cancelHash = attempts.at(-1)!.hash;
    for (let i = 0; i < 200; i++) {
      const byNonce = await pooled(org);
      if (Object.values(byNonce).some((tx) => tx.hash === cancelHash))
        return { attempts, cancelHash };
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error("the cancelling self-transfer never reached the pool");
  };

  it("a sent write is raced by a zero-value self-transfer on its nonce (202 cancelling); mined, the write ends cancelled and nothing of it happened", async () => {
    const startNonce = await nonceOf(org);
    const tokensBefore = await stack.token.balanceOf(org.walletAddress);
    const { id, cancelHash, original } = await stack.withoutAutomine(async () => {
      const id = await write(org);
      try {
        const sent = await waitForStatus(org, id, (b) => b.status === "sent");
        const original = (sent.attempts as Array<{ hash: string; maxFeePerGas: string }>)[0]!;
        const res = await cancel(org, id);
        assert.equal(res.status, 202, res.text);
        assert.deepEqual(res.body, { transactionId: id, status: "cancelling" });
        const { cancelHash } = await cancelInPool(id);
        const again = await cancel(org, id);
        assert.deepEqual([again.status, again.body.status], [202, "cancelling"]);
        return { id, cancelHash, original };
      } finally {
        await stack.rpc("evm_mine");
      }
    });
    const status = await waitForStatus(org, id, (b) => b.status === "cancelled");
    const receipt = status.receipt as { hash: string };
    assert.equal(receipt.hash, cancelHash, "the self-transfer was mined");
    const mined = await stack.provider.getTransaction(cancelHash);
    assert.equal(mined!.to!.toLowerCase(), org.walletAddress.toLowerCase());
    assert.equal(mined!.from.toLowerCase(), org.walletAddress.toLowerCase());
    assert.equal(mined!.value, 0n);
    assert.equal(mined!.data, "0x");
    assert.ok(
      mined!.maxFeePerGas! >= (BigInt(original.maxFeePerGas) * 1125n) / 1000n,
      "priced at least the replacement bump over the original",
    );
    assert.equal(await stack.provider.getTransaction(original.hash), null, "never mined");
    assert.equal(await nonceOf(org), startNonce + 1, "its nonce went to the self-transfer");
    assert.equal(await stack.token.balanceOf(org.walletAddress), tokensBefore, "nothing minted");
    assert.deepEqual([status.result, status.error], [null, "Transaction cancelled"]);

    await receiver.waitFor(
      () => receiver.accepted("/org").some((d) => d.json.data.transactionId === id),
      20_000,
      "transaction.cancelled",
    );
    const pushed = receiver.accepted("/org").find((d) => d.json.data.transactionId === id)!;
    verifyDelivery(pushed, secret);
    assert.equal(pushed.json.txHash, cancelHash);
    assert.equal(pushed.json.data.status, "cancelled");
    const again = await cancel(org, id);
    assert.deepEqual([again.status, again.body.status], [200, "cancelled"], "the first's outcome");
  });

  it("a sent write whose original is mined before its cancel ends as the chain says: confirmed, and a later cancel is 409", async () => {
    const { id } = await stack.withoutAutomine(async () => {
      const id = await write(org);
      try {
        const sent = await waitForStatus(org, id, (b) => b.status === "sent");
        const originalHash = (sent.attempts as Array<{ hash: string }>)[0]!.hash;
        const raw = await stack.rpc<string>("eth_getRawTransactionByHash", [originalHash]);
        assert.equal((await cancel(org, id)).status, 202);
        const { cancelHash } = await cancelInPool(id);
        // The original wins the race: the pool loses the self-transfer and holds the original.
        await stack.rpc("anvil_dropTransaction", [cancelHash]);
        await stack.rpc("eth_sendRawTransaction", [raw]);
        return { id };
      } finally {
        await stack.rpc("evm_mine");
      }
    });
    const status = await waitForStatus(org, id, (b) => b.status === "confirmed");
    const attempts = status.attempts as Array<{ hash: string }>;
    assert.equal((status.receipt as { hash: string }).hash, attempts[0]!.hash, "the original");
    assert.ok((status.result as { tokenId?: string }).tokenId !== undefined, "it minted");
    const late = await cancel(org, id);
    assert.deepEqual(
      [late.status, late.body],
      [409, { error: "Transaction already confirmed", status: "confirmed" }],
    );
  });

  it("another organization's write, an unknown or malformed id: 404; a key without the write's scope: 403, and nothing changes", async () => {
    await behindOne(org, async () => {
      const queued = await write(org);
      const theirs = await cancel(other, queued);
      assert.deepEqual([theirs.status, theirs.body], [404, { error: "Transaction not found" }]);
      for (const id of ["tx_000000000000000000000000", "nope", "tx_" + "z".repeat(24)]) {
        const res = await cancel(org, id);
        assert.deepEqual([res.status, res.body], [404, { error: "Transaction not found" }], id);
      }
      const key = await org.api("POST", "/api/enterprise/keys", {
        body: { scopes: ["write:transfer"], label: "transfers only" },
      });
      assert.equal(key.status, 200, key.text);
      const denied = await cancel(org, queued, key.body.apiKey);
      assert.deepEqual([denied.status, denied.body], [403, { error: "Insufficient scope" }]);
      const readOnly = await org.api("POST", "/api/enterprise/keys", {
        body: { scopes: ["read"], label: "read only" },
      });
      const noWrite = await cancel(org, queued, readOnly.body.apiKey);
      assert.deepEqual([noWrite.status, noWrite.body], [403, { error: "Insufficient scope" }]);
      assert.equal((await row(queued)).state, "queued");
      const all = await org.api("POST", "/api/enterprise/keys", {
        body: { scopes: ["write:all"], label: "all writes" },
      });
      const allowed = await cancel(org, queued, all.body.apiKey);
      assert.equal(allowed.status, 200, allowed.text);
    });
  });

  it("a batch none of whose items was sent is cancelled with all its items", async () => {
    const id = await behindOne(org, async () => {
      const res = await org.api("POST", "/api/v1/write/batch-issue", {
        body: { assets: [assetBody(), assetBody(), assetBody()] },
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
      const batch = res.body.transactionId as string;
      const cancelled = await cancel(org, batch);
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.body.status, "cancelled");
      return batch;
    });
    const { rows } = await stack.ctx.database.pool.query<{ state: string; nonce: string | null }>(
      "SELECT state, nonce FROM transactions WHERE parent_id = $1 ORDER BY item_index",
      [id],
    );
    assert.deepEqual(rows, [
      { state: "cancelled", nonce: null },
      { state: "cancelled", nonce: null },
      { state: "cancelled", nonce: null },
    ]);
  });

  it("the sender records nothing for a round that lost a row to a cancel: no nonce handed out past it", async () => {
    // A wallet leased by a stand-in sequencer (the engine cannot take it meanwhile), with a
    // queued row the stand-in loaded for a round before the cancel came.
    const owner = "test-stand-in";
    const wallet = (await stack.ctx.engine.store.walletOf(other.orgId))!;
    const claimed = await stack.ctx.engine.store.claimWallets(owner, [wallet.id], 60_000);
    assert.equal(claimed.length, 1, "the stand-in holds the wallet");
    try {
      const id = await write(other);
      assert.equal((await row(id)).state, "queued");
      const before = await stack.ctx.database.pool.query<{ next_nonce: string | null }>(
        "SELECT next_nonce::text FROM wallets WHERE id = $1",
        [wallet.id],
      );
      assert.equal((await cancel(other, id)).status, 200);
      const attempt = {
        hash: "0x" + "ab".repeat(32),
        nonce: 7,
        type: 2 as const,
        maxFeePerGas: "1",
        maxPriorityFeePerGas: "1",
        sentAt: new Date().toISOString(),
        raw: "0x02",
      };
      await assert.rejects(
        stack.ctx.engine.store.leasedBy(owner).markSent(wallet.id, 8, [{ id, nonce: 7, attempt }]),
        RoundRowsChangedError,
      );
      const stored = await row(id);
      assert.deepEqual([stored.state, stored.nonce, stored.attempts], ["cancelled", null, []]);
      const after = await stack.ctx.database.pool.query<{ next_nonce: string | null }>(
        "SELECT next_nonce::text FROM wallets WHERE id = $1",
        [wallet.id],
      );
      assert.deepEqual(after.rows, before.rows, "the wallet's next nonce did not move");
    } finally {
      await stack.ctx.engine.store.releaseLeases(owner);
    }
  });

  /** A batch's items, in item order, as the engine stored them. */
  const itemsOf = async (batch: string) =>
    (
      await stack.ctx.database.pool.query<{
        state: string;
        gas_limit: string | null;
        attempts: Array<{ hash: string; cancel?: boolean }>;
      }>(
        "SELECT state, gas_limit, attempts FROM transactions WHERE parent_id = $1 ORDER BY item_index",
        [batch],
      )
    ).rows;
  const batchOf = async (count: number) => {
    const res = await org.api("POST", "/api/v1/write/batch-issue", {
      body: { assets: Array.from({ length: count }, () => assetBody()) },
      headers: ASYNC,
    });
    assert.equal(res.status, 202, res.text);
    return res.body.transactionId as string;
  };
  /** Waits until every item of `batch` passes `check`. */
  const itemsUntil = async (
    batch: string,
    check: (item: Awaited<ReturnType<typeof itemsOf>>[number]) => boolean,
  ) => {
    for (let i = 0; i < 400; i++) {
      const items = await itemsOf(batch);
      if (items.length > 0 && items.every(check)) return items;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`batch ${batch}: items never got there: ${JSON.stringify(await itemsOf(batch))}`);
  };

  it("a batch partly mined: each item not yet mined is cancelled on its nonce, the mined one stays; the answer says which", async () => {
    const startNonce = await nonceOf(org);
    const tokensBefore = await stack.token.balanceOf(org.walletAddress);
    const batch = await stack.withoutAutomine(async () => {
      const batch = await batchOf(3);
      try {
        const sent = await itemsUntil(batch, (i) => i.state === "sent");
        // Blocks with room for one item only: the next block mines the first item alone.
        const gas = BigInt(sent[0]!.gas_limit!);
        await stack.rpc("evm_setBlockGasLimit", [toQuantity(gas + gas / 2n)]);
        await stack.rpc("evm_mine");
        for (let i = 0; i < 400 && (await itemsOf(batch))[0]!.state !== "confirmed"; i++)
          await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(
          (await itemsOf(batch)).map((i) => i.state),
          ["confirmed", "sent", "sent"],
          "the first item alone was mined",
        );
        const res = await cancel(org, batch);
        assert.equal(res.status, 202, res.text);
        const expected = {
          transactionId: batch,
          status: "cancelling",
          items: [
            { index: 0, status: "confirmed", cancel: "too-late" },
            { index: 1, status: "sent", cancel: "cancelling" },
            { index: 2, status: "sent", cancel: "cancelling" },
          ],
        };
        assert.deepEqual(res.body, expected);
        // Each unmined item gets its self-transfer, recorded and in the pool.
        const raced = (await itemsUntil(batch, (i) => i.state !== "sent" || i.attempts.length >= 2))
          .slice(1)
          .map((i) => i.attempts.at(-1)!);
        assert.ok(raced.every((a) => a.cancel === true));
        for (let i = 0; i < 200; i++) {
          const pool = Object.values(await pooled(org)).map((t) => t.hash);
          if (raced.every((a) => pool.includes(a.hash))) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        const again = await cancel(org, batch);
        assert.deepEqual([again.status, again.body], [202, expected], "the first's answer again");
        return batch;
      } finally {
        await stack.rpc("evm_setBlockGasLimit", [toQuantity(30_000_000)]);
        await stack.rpc("evm_mine");
      }
    });
    const status = await waitForStatus(org, batch, (b) => b.status === "confirmed");
    const result = status.result as {
      issued: number;
      failed: number;
      results: Array<{ index: number; success: boolean; error?: string }>;
    };
    assert.deepEqual([result.issued, result.failed], [1, 2]);
    assert.deepEqual(
      result.results.map((r) => [r.index, r.success, r.error ?? null]),
      [
        [0, true, null],
        [1, false, "Transaction cancelled"],
        [2, false, "Transaction cancelled"],
      ],
    );
    assert.deepEqual(
      (await itemsOf(batch)).map((i) => i.state),
      ["confirmed", "cancelled", "cancelled"],
    );
    assert.equal(await nonceOf(org), startNonce + 3, "one nonce per item, two to self-transfers");
    assert.equal(
      await stack.token.balanceOf(org.walletAddress),
      tokensBefore + 1n,
      "one token: the item mined before the cancel",
    );
    const late = await cancel(org, batch);
    assert.deepEqual(
      [late.status, late.body],
      [409, { error: "Transaction already confirmed", status: "confirmed" }],
    );
  });

  it("a sent batch whose every item is cancelled on its nonce ends cancelled; cancelling it again answers that", async () => {
    const tokensBefore = await stack.token.balanceOf(org.walletAddress);
    const batch = await stack.withoutAutomine(async () => {
      const batch = await batchOf(2);
      try {
        await itemsUntil(batch, (i) => i.state === "sent");
        const res = await cancel(org, batch);
        assert.equal(res.status, 202, res.text);
        assert.deepEqual(
          res.body.items.map((i: { cancel: string }) => i.cancel),
          ["cancelling", "cancelling"],
        );
        await itemsUntil(batch, (i) => i.attempts.some((a) => a.cancel === true));
        return batch;
      } finally {
        await stack.rpc("evm_mine");
      }
    });
    const status = await waitForStatus(org, batch, (b) => b.status === "cancelled");
    assert.equal(status.error, "Transaction cancelled");
    assert.equal(await stack.token.balanceOf(org.walletAddress), tokensBefore, "nothing minted");
    const again = await cancel(org, batch);
    assert.deepEqual([again.status, again.body.status], [200, "cancelled"]);
  });
});
