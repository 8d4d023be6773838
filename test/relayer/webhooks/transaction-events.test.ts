import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "../writes/helpers.js";
import type { TestOrg } from "../../support/stack.js";
import { startReceiver, verifyDelivery, type Receiver } from "./receiver.js";

const OUTCOMES = ["transaction.confirmed", "transaction.failed"];

/**
 * The `transaction.*` events (docs/webhooks.md "Transaction outcomes"): one push for each write's
 * end, written by the engine in the statement that ends the row. Real anvil (automine, mining
 * paused where a race is staged), PostgreSQL, the indexer, the webhook workers, a local receiver.
 */
describe("transaction outcome webhooks (anvil + PostgreSQL + indexer + local receiver)", () => {
  let stack: WriteStack;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let alice: TestOrg;
  let bob: TestOrg;
  let carol: TestOrg;
  const secrets = new Map<string, string>(); // path -> secret

  async function subscribe(org: TestOrg, path: string, events: string[]): Promise<void> {
    const res = await org.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url(path), events },
    });
    assert.equal(res.status, 200, res.text);
    secrets.set(path, res.body.secret);
  }
  const outcomes = (path: string) =>
    receiver.accepted(path).filter((d) => d.json.event.startsWith("transaction."));
  const outcomeOf = async (path: string, transactionId: string) => {
    await receiver.waitFor(
      () => outcomes(path).some((d) => d.json.data.transactionId === transactionId),
      20_000,
      `the outcome of ${transactionId} on ${path}`,
    );
    const delivery = outcomes(path).find((d) => d.json.data.transactionId === transactionId)!;
    verifyDelivery(delivery, secrets.get(path)!);
    return delivery;
  };
  const async = { Prefer: "respond-async" };

  before(async () => {
    stack = await startWriteStack();
    receiver = await startReceiver();
    workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200, backoffMaxMs: 1_000 });
    [alice, bob, carol] = await Promise.all([
      stack.registerOrg(),
      stack.registerOrg(),
      stack.registerOrg(),
    ]);
    await subscribe(alice, "/alice", OUTCOMES);
    await subscribe(bob, "/bob", OUTCOMES);
    await subscribe(carol, "/carol", OUTCOMES);
  });

  after(async () => {
    await workers?.stop();
    await stack?.stop();
    await receiver?.close();
  });

  it("an async issue-asset that is mined sends transaction.confirmed with its id, kind, Idempotency-Key and result, signed and retried after a 500", async () => {
    receiver.respond.set("/alice", (_req, count) => ({ status: count === 1 ? 500 : 200 }));
    const res = await alice.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "Pushed" }),
      headers: { ...async, "Idempotency-Key": "outcome-1" },
    });
    assert.equal(res.status, 202, res.text);
    const id = res.body.transactionId as string;
    const status = await waitForStatus(alice, id, (b) => b.status === "confirmed");
    const delivery = await outcomeOf("/alice", id);
    receiver.respond.delete("/alice");
    assert.ok(
      receiver.received.filter((d) => d.path === "/alice").length >= 2,
      "the first attempt was refused and the event sent again",
    );
    const receipt = status.receipt as { hash: string; blockNumber: number };
    const result = status.result as { tokenId: string; txHash: string };
    assert.equal(delivery.json.event, "transaction.confirmed");
    assert.equal(delivery.json.orgId, alice.orgId);
    assert.equal(delivery.json.txHash, receipt.hash);
    assert.equal(delivery.json.blockNumber, receipt.blockNumber);
    assert.equal(typeof delivery.json.timestamp, "number");
    const data = delivery.json.data;
    assert.deepEqual(
      [data.transactionId, data.kind, data.status, data.idempotencyKey],
      [id, "issue-asset", "confirmed", "outcome-1"],
    );
    assert.equal(data.result.tokenId, result.tokenId);
    assert.equal(data.result.txHash, result.txHash);
    assert.equal(data.result.name, "Pushed");
    assert.equal("metadataDocument" in data.result, false, "the service's bookkeeping stays out");
    assert.equal("reason" in data, false);
  });

  it("a buy that loses its listing to another buyer in the same block sends transaction.failed with the reason in the API's words, and the winner transaction.confirmed", async () => {
    const issued = await alice.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(issued.status, 200, issued.text);
    const listed = await alice.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId: issued.body.tokenId, priceInCOIN: "0.01" },
    });
    assert.equal(listed.status, 200, listed.text);
    const listingId = listed.body.listingId as string;
    // Both buys pass every check and are broadcast; one block then holds both: one takes the
    // listing, the other reverts (the report: no webhook told the loser).
    const [bobBuy, carolBuy] = await stack.withoutAutomine(async () => {
      const buys = await Promise.all(
        [bob, carol].map((org) =>
          org.api("POST", "/api/v1/write/marketplace/buy", { body: { listingId }, headers: async }),
        ),
      );
      for (const [i, buy] of buys.entries()) {
        assert.equal(buy.status, 202, buy.text);
        await waitForStatus([bob, carol][i]!, buy.body.transactionId, (b) => b.status === "sent");
      }
      await stack.rpc("evm_mine");
      return buys;
    });
    const [bobDelivery, carolDelivery] = await Promise.all([
      outcomeOf("/bob", bobBuy!.body.transactionId),
      outcomeOf("/carol", carolBuy!.body.transactionId),
    ]);
    const byEvent = new Map(
      [bobDelivery, carolDelivery].map((d) => [d.json.event, d.json] as const),
    );
    assert.deepEqual(
      [...byEvent.keys()].sort(),
      ["transaction.confirmed", "transaction.failed"],
      "one buy won, the other lost",
    );
    const lost = byEvent.get("transaction.failed")!;
    assert.deepEqual(lost.data, {
      transactionId: lost.data.transactionId,
      kind: "buy",
      status: "failed",
      reason: "Listing not active",
    });
    assert.equal(typeof lost.txHash, "string", "the reverted transaction was mined");
    const loser = lost.orgId === bob.orgId ? bob : carol;
    const status = await loser.api("GET", `/api/v1/transactions/${lost.data.transactionId}`);
    assert.deepEqual(
      [status.body.status, status.body.error, status.body.receipt.hash],
      ["failed", lost.data.reason, lost.txHash],
      "the event says what GET /api/v1/transactions/{id} says",
    );
    const won = byEvent.get("transaction.confirmed")!;
    assert.equal(won.data.result.listingId, listingId);
  });

  it("a webhook not subscribed to transaction events gets none, and no outbox row is written for them", async () => {
    const dave = await stack.registerOrg();
    await subscribe(dave, "/dave", ["asset.issued"]);
    const res = await dave.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
    assert.equal(res.status, 200, res.text);
    await receiver.waitFor(
      () => receiver.accepted("/dave").length >= 1,
      20_000,
      "dave's asset.issued",
    );
    const { rows } = await stack.ctx.database.pool.query<{ kind: string }>(
      "SELECT kind FROM webhook_events WHERE org_id = $1 ORDER BY kind",
      [dave.orgId],
    );
    assert.deepEqual(
      rows.map((r) => r.kind),
      ["asset.issued"],
    );
    assert.deepEqual(
      receiver.accepted("/dave").map((d) => d.json.event),
      ["asset.issued"],
    );
  });

  it("webhooks subscribe to the transaction events by name; an unknown name is 400 with the field named", async () => {
    const res = await alice.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/named"), events: ["transaction.failed"] },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.events, ["transaction.failed"]);
    const bad = await alice.api("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/named"), events: ["transaction.nope"] },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.body.error, /^Invalid field: events\.0 /);
  });
});
