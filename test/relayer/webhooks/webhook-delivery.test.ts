import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Wallet } from "ethers";
import { startIndexer, type IndexerHandle } from "../../../relayer/src/indexer/index.js";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import { startWriteStack, assetBody, type WriteStack } from "../writes/helpers.js";
import type { TestOrg } from "../../support/stack.js";
import { FOREIGN_KEYS, orgSigner, tokenAs } from "./chain-helpers.js";
import { startReceiver, verifyDelivery, type Receiver, type ReceivedDelivery } from "./receiver.js";

const ALL_EVENTS = [
  "asset.issued",
  "asset.transferred",
  "asset.listed",
  "asset.sold",
  "asset.delisted",
];

describe("webhook delivery (anvil + PostgreSQL + local receiver)", () => {
  let stack: WriteStack;
  let indexer: IndexerHandle;
  let workers: WebhookWorkersHandle;
  let receiver: Receiver;
  let seller: TestOrg;
  let buyer: TestOrg;
  const secrets = new Map<string, string>(); // path -> secret
  const webhookIds = new Map<string, string>(); // path -> id

  async function register(
    org: TestOrg,
    path: string,
    options: { secret?: string; events?: string[] } = {},
  ) {
    const res = await org.api("POST", "/api/enterprise/webhooks", {
      body: {
        url: receiver.url(path),
        events: options.events ?? ALL_EVENTS,
        ...(options.secret ? { secret: options.secret } : {}),
      },
    });
    assert.equal(res.status, 200, res.text);
    secrets.set(path, res.body.secret);
    webhookIds.set(path, res.body.webhookId);
  }

  async function write(org: TestOrg, path: string, body: Record<string, unknown>) {
    const res = await org.api("POST", `/api/v1/write/${path}`, { body });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body;
  }

  const events = (path: string, kind?: string) =>
    receiver.accepted(path).filter((d) => kind === undefined || d.json.event === kind);
  const waitEvent = (path: string, kind: string, tokenId: string) =>
    receiver.waitFor(
      () => events(path, kind).some((d) => d.json.data.tokenId === tokenId),
      20_000,
      `${kind} for token ${tokenId} at ${path}`,
    );

  before(async () => {
    stack = await startWriteStack();
    receiver = await startReceiver();
    indexer = await startIndexer(stack.ctx, { pollIntervalMs: 100 });
    workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200, backoffMaxMs: 1_000 });
    seller = await stack.registerOrg();
    buyer = await stack.registerOrg();
    await register(seller, "/seller");
    await register(buyer, "/buyer", { secret: "a-raw-secret-that-is-not-whsec" });
  });

  after(async () => {
    await workers?.stop();
    await indexer?.stop();
    await receiver?.close();
    await stack?.stop();
  });

  it("delivers issued, listed, sold, delisted and transferred once each, signed both ways; a sale is also a transfer, escrow moves are not", async () => {
    const first = await write(seller, "issue-asset", assetBody({ name: "Bond One" }));
    const tokenId = String(first.tokenId);
    await waitEvent("/seller", "asset.issued", tokenId);
    const issued = events("/seller", "asset.issued").find((d) => d.json.data.tokenId === tokenId)!;
    assert.equal(issued.json.orgId, seller.orgId);
    assert.equal(issued.json.txHash, first.txHash);
    assert.equal(typeof issued.json.blockNumber, "number");
    assert.equal(issued.json.data.from, "0x0000000000000000000000000000000000000000");
    assert.equal(issued.json.data.to, seller.walletAddress);
    assert.equal(issued.json.data.wallet, seller.walletAddress);
    assert.equal(issued.json.data.assetType, "Bond");
    assert.equal(issued.json.data.name, "Bond One");
    assert.equal(issued.json.data.stakedAmount, "0.1");

    const listed = await write(seller, "marketplace/list", { tokenId, priceInCOIN: "0.5" });
    await waitEvent("/seller", "asset.listed", tokenId);
    const listedEvent = events("/seller", "asset.listed").find(
      (d) => d.json.data.tokenId === tokenId,
    )!;
    assert.equal(listedEvent.json.data.listingId, String(listed.listingId));
    assert.equal(listedEvent.json.data.price, "0.5");

    await write(buyer, "marketplace/buy", { listingId: String(listed.listingId) });
    await waitEvent("/seller", "asset.sold", tokenId);
    await waitEvent("/buyer", "asset.sold", tokenId);
    const sold = events("/buyer", "asset.sold").find((d) => d.json.data.tokenId === tokenId)!;
    assert.equal(sold.json.orgId, buyer.orgId);
    assert.equal(sold.json.data.buyer, buyer.walletAddress);
    assert.equal(sold.json.data.seller, seller.walletAddress);
    assert.equal(sold.json.data.price, "0.5");
    // A sale changes the owner: asset.transferred from the seller to the buyer, beside asset.sold.
    for (const path of ["/seller", "/buyer"]) {
      await waitEvent(path, "asset.transferred", tokenId);
      const moved = events(path, "asset.transferred").find((d) => d.json.data.tokenId === tokenId)!;
      assert.deepEqual(
        { from: moved.json.data.from, to: moved.json.data.to, txHash: moved.json.txHash },
        { from: seller.walletAddress, to: buyer.walletAddress, txHash: sold.json.txHash },
      );
      assert.notEqual(moved.headers["webhook-id"], sold.headers["webhook-id"]);
    }

    const second = String(
      (await write(seller, "issue-asset", assetBody({ name: "Bond Two" }))).tokenId,
    );
    const listing2 = await write(seller, "marketplace/list", { tokenId: second, priceInCOIN: "1" });
    await write(seller, "marketplace/delist", { listingId: String(listing2.listingId) });
    await waitEvent("/seller", "asset.delisted", second);
    const delisted = events("/seller", "asset.delisted").find(
      (d) => d.json.data.tokenId === second,
    )!;
    assert.equal(delisted.json.data.listingId, String(listing2.listingId));
    assert.equal(delisted.json.data.seller, seller.walletAddress);

    await write(seller, "transfer", { tokenId: second, toAddress: buyer.walletAddress });
    await waitEvent("/seller", "asset.transferred", second);
    await waitEvent("/buyer", "asset.transferred", second);
    const transferred = events("/buyer", "asset.transferred").find(
      (d) => d.json.data.tokenId === second,
    )!;
    assert.deepEqual(
      { from: transferred.json.data.from, to: transferred.json.data.to },
      { from: seller.walletAddress, to: buyer.walletAddress },
    );

    // let stragglers arrive, then check: exactly once per state change, valid signatures
    await new Promise((r) => setTimeout(r, 1_000));
    for (const path of ["/seller", "/buyer"]) {
      const ids = receiver.accepted(path).map((d) => String(d.headers["webhook-id"]));
      assert.equal(new Set(ids).size, ids.length, `duplicate webhook-id at ${path}`);
      for (const d of receiver.accepted(path)) verifyDelivery(d, secrets.get(path)!);
    }
    const kinds = (path: string) =>
      receiver
        .accepted(path)
        .map((d: ReceivedDelivery) => `${d.json.event}:${d.json.data.tokenId}`)
        .sort();
    assert.deepEqual(
      kinds("/seller"),
      [
        `asset.delisted:${second}`,
        `asset.issued:${second}`,
        `asset.issued:${tokenId}`,
        `asset.listed:${second}`,
        `asset.listed:${tokenId}`,
        `asset.sold:${tokenId}`,
        `asset.transferred:${tokenId}`,
        `asset.transferred:${second}`,
      ].sort(),
    );
    assert.deepEqual(
      kinds("/buyer"),
      [
        `asset.sold:${tokenId}`,
        `asset.transferred:${tokenId}`,
        `asset.transferred:${second}`,
      ].sort(),
    );
  });

  it("a transfer by a foreign wallet shows in /assets/{id} and notifies the org that lost the token", async () => {
    const tokenId = String(
      (await write(seller, "issue-asset", assetBody({ name: "Bond Three" }))).tokenId,
    );
    const operator = new Wallet(FOREIGN_KEYS[0], stack.provider);
    const stranger = new Wallet(FOREIGN_KEYS[1], stack.provider);
    const sellerWallet = await orgSigner(stack, seller.orgId, stack.provider);
    await (
      await tokenAs(stack, sellerWallet).getFunction("setApprovalForAll")(operator.address, true)
    ).wait();
    await (
      await tokenAs(stack, operator).getFunction("transferFrom")(
        seller.walletAddress,
        stranger.address,
        tokenId,
      )
    ).wait();
    await waitEvent("/seller", "asset.transferred", tokenId);
    const event = events("/seller", "asset.transferred").find(
      (d) => d.json.data.tokenId === tokenId,
    )!;
    assert.equal(event.json.data.from, seller.walletAddress);
    assert.equal(event.json.data.to, stranger.address);
    const asset = await stack.api("GET", `/api/v1/assets/${tokenId}`);
    assert.equal(asset.status, 200);
    assert.equal(asset.body.owner, stranger.address);
    assert.equal("issuerOrgId" in asset.body, false, "public reads never name our customer");
    assert.equal(asset.body.name, "Bond Three");
  });

  it("a receiver that fails with 500 and 429 for a while still gets every event, in the delivery log", async () => {
    const org = await stack.registerOrg();
    await register(org, "/flaky");
    let failUntil = Date.now() + 2_500;
    receiver.respond.set("/flaky", (_req, n) =>
      Date.now() < failUntil
        ? n % 2 === 0
          ? { status: 429, headers: { "retry-after": "1" } }
          : { status: 500 }
        : { status: 200 },
    );
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        String((await write(org, "issue-asset", assetBody({ name: `Flaky ${i}` }))).tokenId),
      );
    await receiver.waitFor(
      () =>
        ids.every((id) => events("/flaky", "asset.issued").some((d) => d.json.data.tokenId === id)),
      30_000,
    );
    failUntil = 0;
    assert.ok(
      receiver.received.filter((d) => d.path === "/flaky").length > 3,
      "some attempts failed first",
    );
    const url = `/api/enterprise/webhooks/${webhookIds.get("/flaky")}/deliveries`;
    let log = await org.api("GET", url);
    for (
      let i = 0;
      i < 50 && log.body.deliveries.some((d: { status: string }) => d.status !== "delivered");
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100)); // the receiver answered; the worker is recording it
      log = await org.api("GET", url);
    }
    assert.equal(log.status, 200, log.text);
    assert.equal(log.body.deliveries.length, 3);
    for (const d of log.body.deliveries) {
      assert.equal(d.status, "delivered");
      assert.ok(d.attemptLog.length >= 1);
      const failed = d.attemptLog.filter((a: { statusCode: number }) => a.statusCode !== 200);
      for (const a of failed) assert.ok(a.responseSnippet.length <= 512);
    }
    assert.equal(log.body.enabled, true);
    // another org cannot read it
    const other = await buyer.api(
      "GET",
      `/api/enterprise/webhooks/${webhookIds.get("/flaky")}/deliveries`,
    );
    assert.equal(other.status, 404);
  });

  it("a slow receiver does not delay another organization's deliveries", async () => {
    const slowOrg = await stack.registerOrg();
    const fastOrg = await stack.registerOrg();
    await register(slowOrg, "/slow");
    await register(fastOrg, "/fast");
    receiver.respond.set("/slow", () => ({ status: 200, delayMs: 4_000 }));
    const slowIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      slowIds.push(
        String((await write(slowOrg, "issue-asset", assetBody({ name: `Slow ${i}` }))).tokenId),
      );
    }
    const fastId = String(
      (await write(fastOrg, "issue-asset", assetBody({ name: "Fast" }))).tokenId,
    );
    await waitEvent("/fast", "asset.issued", fastId);
    // The slow organization's six deliveries take at least 8 s (4 s each, at most 4 at a time):
    // the fast one did not wait behind them.
    assert.ok(events("/slow").length < slowIds.length, "slow receiver still busy");
    await receiver.waitFor(
      () => events("/slow").length === slowIds.length,
      20_000,
      "slow deliveries",
    );
    const overlap = receiver.maxInFlight("/slow");
    // docs/webhooks.md "Fair delivery": at most 4 of a process's slots per organization.
    assert.ok(overlap <= 4, `at most 4 concurrent requests per organization (got ${overlap})`);
    assert.ok(overlap >= 2, `the slow deliveries ran side by side (got ${overlap})`);
  });

  it("410 Gone disables the webhook with a visible reason", async () => {
    const org = await stack.registerOrg();
    await register(org, "/gone");
    receiver.respond.set("/gone", () => ({ status: 410 }));
    await write(org, "issue-asset", assetBody({ name: "Gone" }));
    await receiver.waitFor((all) => all.some((d) => d.path === "/gone"));
    const webhookId = webhookIds.get("/gone")!;
    let log = await org.api("GET", `/api/enterprise/webhooks/${webhookId}/deliveries`);
    for (let i = 0; i < 40 && log.body.enabled !== false; i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = await org.api("GET", `/api/enterprise/webhooks/${webhookId}/deliveries`);
    }
    assert.equal(log.body.enabled, false);
    assert.match(log.body.disabledReason, /410/);
    assert.equal(log.body.deliveries[0].status, "failed");
    const again = await org.api(
      "POST",
      `/api/enterprise/webhooks/${webhookId}/deliveries/${log.body.deliveries[0].deliveryId}/redeliver`,
    );
    assert.equal(again.status, 409);
    assert.match(again.body.error, /disabled/);
  });

  it("a webhook failing continuously for more than 3 days is disabled with a visible reason", async () => {
    const org = await stack.registerOrg();
    await register(org, "/down");
    receiver.respond.set("/down", () => ({ status: 503 }));
    const webhookId = webhookIds.get("/down")!;
    await stack.database.pool.query(
      `UPDATE webhooks SET failing_since = now() - interval '3 days 1 minute' WHERE id = $1`,
      [webhookId],
    );
    await write(org, "issue-asset", assetBody({ name: "Down" }));
    let log = await org.api("GET", `/api/enterprise/webhooks/${webhookId}/deliveries`);
    for (let i = 0; i < 100 && log.body.enabled !== false; i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = await org.api("GET", `/api/enterprise/webhooks/${webhookId}/deliveries`);
    }
    assert.equal(log.body.enabled, false);
    assert.match(log.body.disabledReason, /3 days/);
    const listed = await org.api("GET", "/api/enterprise/webhooks");
    assert.equal(listed.body.webhooks[0].enabled, false);
  });

  it("test ping and manual redelivery reach the receiver with the same webhook-id on redelivery", async () => {
    const webhookId = webhookIds.get("/seller")!;
    const ping = await seller.api("POST", `/api/enterprise/webhooks/${webhookId}/test`);
    assert.equal(ping.status, 202, ping.text);
    await receiver.waitFor(() => events("/seller", "webhook.test").length === 1);
    verifyDelivery(events("/seller", "webhook.test")[0]!, secrets.get("/seller")!);

    const log = await seller.api(
      "GET",
      `/api/enterprise/webhooks/${webhookId}/deliveries?limit=100`,
    );
    const issued = log.body.deliveries.find((d: { event: string }) => d.event === "asset.issued");
    const before = receiver
      .accepted("/seller")
      .filter((d) => d.headers["webhook-id"] === issued.eventId).length;
    const again = await seller.api(
      "POST",
      `/api/enterprise/webhooks/${webhookId}/deliveries/${issued.deliveryId}/redeliver`,
    );
    assert.equal(again.status, 202, again.text);
    await receiver.waitFor(
      () =>
        receiver.accepted("/seller").filter((d) => d.headers["webhook-id"] === issued.eventId)
          .length ===
        before + 1,
    );
    const unknown = await seller.api(
      "POST",
      `/api/enterprise/webhooks/${webhookId}/deliveries/dlv_nope/redeliver`,
    );
    assert.equal(unknown.status, 404);
    const foreign = await buyer.api("POST", `/api/enterprise/webhooks/${webhookId}/test`);
    assert.equal(foreign.status, 404);
  });
});
