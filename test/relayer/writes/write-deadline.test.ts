import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "./helpers.js";
import type { TestOrg } from "../../support/stack.js";
import { startReceiver, verifyDelivery, type Receiver } from "../webhooks/receiver.js";

const ASYNC = { Prefer: "respond-async" };

/**
 * `validForSeconds` on every write (docs/api-decisions.md "Deadlines"): a write not sent when
 * its deadline passes ends `expired` without being sent. Real anvil and PostgreSQL, the engine
 * with one write in flight per organization, so that with mining paused a second write waits
 * `queued` behind the first until its deadline.
 */
describe("write deadlines (anvil + PostgreSQL + engine)", () => {
  let stack: WriteStack;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let org: TestOrg;
  let secret: string;

  const row = async (id: string) =>
    (
      await stack.ctx.database.pool.query<{
        state: string;
        nonce: string | null;
        attempts: unknown[];
        valid_until: Date | null;
      }>("SELECT state, nonce, attempts, valid_until FROM transactions WHERE id = $1", [id])
    ).rows[0]!;
  const nonceOf = async () =>
    Number(
      BigInt(await stack.rpc<string>("eth_getTransactionCount", [org.walletAddress, "latest"])),
    );

  before(async () => {
    stack = await startWriteStack({}, { sequencer: { maxInFlightPerOrg: 1 } });
    receiver = await startReceiver();
    workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200, backoffMaxMs: 1_000 });
    org = await stack.registerOrg();
    const hook = await org.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/org"), events: ["transaction.expired", "transaction.confirmed"] },
    });
    assert.equal(hook.status, 200, hook.text);
    secret = hook.body.secret;
  });

  after(async () => {
    await workers?.stop();
    await stack?.stop();
    await receiver?.close();
  });

  it("a write still queued when its deadline passes ends expired without being sent, and transaction.expired is pushed", async () => {
    const startNonce = await nonceOf();
    const { first, late } = await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
      const first = res.body.transactionId as string;
      try {
        await waitForStatus(org, first, (b) => b.status === "sent");
        // Queued behind the first (one in flight), with a deadline of one second.
        const queued = await org.api("POST", "/api/v1/write/issue-asset", {
          body: assetBody({ validForSeconds: 1 }),
          headers: { ...ASYNC, "Idempotency-Key": "deadline-1" },
        });
        assert.equal(queued.status, 202, queued.text);
        const late = queued.body.transactionId as string;
        const stored = await row(late);
        assert.equal(stored.state, "queued");
        assert.ok(stored.valid_until !== null, "the deadline is stored");
        const status = await waitForStatus(org, late, (b) => b.status === "expired");
        assert.deepEqual(
          [status.error, status.errorStatus, status.nonce, status.attempts],
          ["Transaction expired", 409, null, []],
        );
        return { first, late };
      } finally {
        await stack.rpc("evm_mine");
      }
    });
    await waitForStatus(org, first, (b) => b.status === "confirmed");
    const stored = await row(late);
    assert.deepEqual([stored.state, stored.nonce, stored.attempts], ["expired", null, []]);
    assert.equal(await nonceOf(), startNonce + 1, "only the first write reached the chain");

    await receiver.waitFor(
      () => receiver.accepted("/org").some((d) => d.json.data.transactionId === late),
      20_000,
      "transaction.expired",
    );
    const pushed = receiver.accepted("/org").find((d) => d.json.data.transactionId === late)!;
    verifyDelivery(pushed, secret);
    assert.equal(pushed.json.event, "transaction.expired");
    assert.deepEqual(pushed.json.data, {
      transactionId: late,
      kind: "issue-asset",
      status: "expired",
      idempotencyKey: "deadline-1",
      reason: "Transaction expired",
    });
    const cancel = await org.api("POST", `/api/v1/transactions/${late}/cancel`);
    assert.deepEqual(
      [cancel.status, cancel.body],
      [409, { error: "Transaction already expired", status: "expired" }],
    );
  });

  it("a write sent but not mined by its deadline is raced by a self-transfer on its nonce and ends expired when that wins", async () => {
    const startNonce = await nonceOf();
    const tokensBefore = await stack.token.balanceOf(org.walletAddress);
    const { id, deadlineHash } = await stack.withoutAutomine(async () => {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ validForSeconds: 2 }),
        headers: ASYNC,
      });
      assert.equal(res.status, 202, res.text);
      const id = res.body.transactionId as string;
      try {
        await waitForStatus(org, id, (b) => b.status === "sent");
        // Past its deadline, still in the pool: the engine races it.
        const raced = await waitForStatus(org, id, (b) => (b.attempts as unknown[]).length >= 2);
        const deadlineHash = (raced.attempts as Array<{ hash: string }>).at(-1)!.hash;
        for (let i = 0; i < 200; i++) {
          const pool = await stack.rpc<{
            pending: Record<string, Record<string, { hash: string }>>;
          }>("txpool_content");
          const mine = Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce));
          if (mine.some((tx) => tx.hash === deadlineHash)) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        return { id, deadlineHash };
      } finally {
        await stack.rpc("evm_mine");
      }
    });
    const status = await waitForStatus(org, id, (b) => b.status === "expired");
    assert.equal((status.receipt as { hash: string }).hash, deadlineHash, "the self-transfer");
    assert.deepEqual([status.error, status.errorStatus], ["Transaction expired", 409]);
    const mined = await stack.provider.getTransaction(deadlineHash);
    assert.equal(mined!.to!.toLowerCase(), org.walletAddress.toLowerCase());
    assert.equal(mined!.value, 0n);
    assert.equal(await nonceOf(), startNonce + 1);
    assert.equal(await stack.token.balanceOf(org.walletAddress), tokensBefore, "nothing minted");
    await receiver.waitFor(
      () => receiver.accepted("/org").some((d) => d.json.data.transactionId === id),
      20_000,
      "transaction.expired",
    );
    const pushed = receiver.accepted("/org").find((d) => d.json.data.transactionId === id)!;
    assert.deepEqual(
      [pushed.json.event, pushed.json.txHash, pushed.json.data.status],
      ["transaction.expired", deadlineHash, "expired"],
    );
  });

  it("a write sent before its deadline is not touched by it: it confirms", async () => {
    const res = await org.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId: "999999999", priceInCOIN: "1", validForSeconds: 604_800 },
    });
    // A body with the field passes validation; the kind's own check answers.
    assert.deepEqual([res.status, res.body], [400, { error: "Token 999999999 does not exist" }]);
    const issued = await org.api("POST", "/api/v1/write/batch-issue", {
      body: { assets: [assetBody(), assetBody()], validForSeconds: 3600 },
    });
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.body.issued, 2);
    const id = issued.headers.get("x-transaction-id")!;
    const status = await org.api("GET", `/api/v1/transactions/${id}`);
    assert.equal(status.body.status, "confirmed");
  });

  it("validForSeconds out of 1 s to 7 days, or not a whole number, is 400 with the field named, and nothing is recorded", async () => {
    const { rows: before } = await stack.ctx.database.pool.query(
      "SELECT count(*)::int AS n FROM transactions WHERE org_id = $1",
      [org.orgId],
    );
    const message =
      "Invalid field: validForSeconds (must be a whole number of seconds from 1 to 604800 (7 days))";
    for (const validForSeconds of [0, -5, 604_801, 1.5, "60", true]) {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ validForSeconds }),
      });
      assert.deepEqual([res.status, res.body], [400, { error: message }], String(validForSeconds));
    }
    const batchItem = await org.api("POST", "/api/v1/write/batch-issue", {
      body: { assets: [assetBody({ validForSeconds: 60 })] },
    });
    assert.deepEqual(
      [batchItem.status, batchItem.body],
      [400, { error: "Unknown field: assets.0.validForSeconds" }],
      "a deadline is the whole write's, not an item's",
    );
    const { rows: after } = await stack.ctx.database.pool.query(
      "SELECT count(*)::int AS n FROM transactions WHERE org_id = $1",
      [org.orgId],
    );
    assert.deepEqual(after, before);
  });
});
