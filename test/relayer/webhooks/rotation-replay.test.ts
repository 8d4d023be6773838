import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError, RwaClient } from "../../../relayer/sdk/index.js";
import { verifyWebhook } from "../../../relayer/sdk/verify-webhook.js";
import {
  startWebhookWorkers,
  type WebhookWorkersHandle,
} from "../../../relayer/src/webhooks/index.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";
import { startReceiver, verifyDelivery, type Receiver, type ReceivedDelivery } from "./receiver.js";

const DAY_MS = 86_400_000;

/**
 * Secret rotation, replay, event filters and the `webhook.disabled` notice, against a real anvil,
 * PostgreSQL, the delivery workers and a local receiver (docs/webhooks.md).
 */
describe(
  "webhook secret rotation, replay, filters and webhook.disabled",
  { timeout: 120_000 },
  () => {
    let stack: WriteStack;
    let workers: WebhookWorkersHandle;
    let receiver: Receiver;
    let org: TestOrg;
    let other: TestOrg;

    async function register(owner: TestOrg, path: string, events: string[] = ["asset.issued"]) {
      const res = await owner.api("POST", "/api/enterprise/webhooks", {
        body: { url: receiver.url(path), events },
      });
      assert.equal(res.status, 200, res.text);
      return res.body as { webhookId: string; secret: string };
    }

    function deliveriesTo(path: string, event?: string): ReceivedDelivery[] {
      return receiver.accepted(path).filter((d) => event === undefined || d.json.event === event);
    }

    async function issue(owner: TestOrg, name: string): Promise<string> {
      const res = await owner.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name }),
        timeoutMs: 60_000,
      });
      assert.equal(res.status, 200, res.text);
      return String(res.body.tokenId);
    }

    before(async () => {
      stack = await startWriteStack({ config: { webhookManualPerMinute: 1_000 } });
      receiver = await startReceiver();
      workers = await startWebhookWorkers(stack.ctx, { backoffBaseMs: 200, backoffMaxMs: 1_000 });
      org = await stack.registerOrg();
      other = await stack.registerOrg();
    });

    after(async () => {
      await workers?.stop();
      await receiver?.close();
      await stack?.stop();
    });

    it("rotate-secret answers the new secret once; during the grace period deliveries carry both signatures, and the SDK verifies across the rotation", async () => {
      const hook = await register(org, "/rotate");
      const rotated = await org.api(
        "POST",
        `/api/enterprise/webhooks/${hook.webhookId}/rotate-secret`,
      );
      assert.equal(rotated.status, 200, rotated.text);
      const next = rotated.body.secret as string;
      assert.match(next, /^whsec_/);
      assert.notEqual(next, hook.secret);
      // Default grace period: 24 h (WEBHOOK_SECRET_GRACE_SECONDS).
      const graceMs = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
      assert.ok(Math.abs(graceMs - DAY_MS) < 60_000, `grace ${graceMs} ms`);
      const list = await org.api("GET", "/api/enterprise/webhooks");
      const listed = list.body.webhooks.find(
        (w: { webhookId: string }) => w.webhookId === hook.webhookId,
      );
      assert.equal(listed.previousSecretExpiresAt, rotated.body.previousSecretExpiresAt);
      assert.equal(
        JSON.stringify(list.body).includes(next),
        false,
        "the secret is shown only once",
      );

      const ping = await org.api("POST", `/api/enterprise/webhooks/${hook.webhookId}/test`);
      assert.equal(ping.status, 202, ping.text);
      await receiver.waitFor(() => deliveriesTo("/rotate").length >= 1, 20_000, "the ping");
      const during = deliveriesTo("/rotate")[0]!;
      const signatures = String(during.headers["webhook-signature"]).split(" ");
      assert.equal(signatures.length, 2);
      // X-Service-Signature with the new secret (spec section 6), both in webhook-signature.
      verifyDelivery(during, next);
      const standardOnly = { ...during.headers };
      delete standardOnly["x-service-signature"];
      assert.equal(await verifyWebhook(during.body, standardOnly, hook.secret), true);
      assert.equal(await verifyWebhook(during.body, during.headers, next), true);
      assert.equal(await verifyWebhook(during.body, during.headers, [hook.secret, next]), true);
      assert.equal(
        await verifyWebhook(during.body, during.headers, "whsec_" + "A".repeat(44)),
        false,
      );

      // Once the grace period is over only the new secret signs.
      await stack.database.pool.query(
        `UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
        [hook.webhookId],
      );
      await org.api("POST", `/api/enterprise/webhooks/${hook.webhookId}/test`);
      await receiver.waitFor(() => deliveriesTo("/rotate").length >= 2, 20_000, "the second ping");
      const afterGrace = deliveriesTo("/rotate")[1]!;
      assert.equal(String(afterGrace.headers["webhook-signature"]).split(" ").length, 1);
      assert.equal(
        await verifyWebhook(afterGrace.body, afterGrace.headers, [hook.secret, next]),
        true,
      );
      const stale = { ...afterGrace.headers };
      delete stale["x-service-signature"];
      assert.equal(await verifyWebhook(afterGrace.body, stale, hook.secret), false);

      // Another organization's webhook, an unknown or a deleted one: 404.
      const foreign = await other.api(
        "POST",
        `/api/enterprise/webhooks/${hook.webhookId}/rotate-secret`,
      );
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, { error: "Webhook not found" });
    });

    it("replay redelivers every event of the range with its first webhook-id; inverted or over 31 days is 400, deleted is 404", async () => {
      const hook = await register(org, "/replay");
      const from = new Date(Date.now() - 1_000).toISOString();
      const tokens = [await issue(org, "replay one"), await issue(org, "replay two")];
      const issuedTo = (path: string, token: string) =>
        deliveriesTo(path, "asset.issued").filter((d) => String(d.json.data.tokenId) === token);
      await receiver.waitFor(
        () => tokens.every((t) => issuedTo("/replay", t).length === 1),
        20_000,
        "the first deliveries",
      );
      const to = new Date(Date.now() + 1_000).toISOString();
      const replay = await org.api("POST", `/api/enterprise/webhooks/${hook.webhookId}/replay`, {
        body: { from, to },
      });
      assert.equal(replay.status, 202, replay.text);
      assert.equal(replay.body.queued, 2);
      await receiver.waitFor(
        () => tokens.every((t) => issuedTo("/replay", t).length === 2),
        20_000,
        "the replayed deliveries",
      );
      for (const token of tokens) {
        const [first, again] = issuedTo("/replay", token);
        assert.equal(again!.headers["webhook-id"], first!.headers["webhook-id"]);
        assert.equal(again!.body, first!.body);
      }

      const post = (body: unknown, owner = org, id = hook.webhookId) =>
        owner.api("POST", `/api/enterprise/webhooks/${id}/replay`, { body });
      const inverted = await post({ from: to, to: from });
      assert.equal(inverted.status, 400);
      assert.deepEqual(inverted.body, { error: "Invalid range: from must be before to" });
      const tooLong = await post({
        from: new Date(Date.now() - 32 * DAY_MS).toISOString(),
        to: new Date().toISOString(),
      });
      assert.equal(tooLong.status, 400);
      assert.deepEqual(tooLong.body, { error: "Invalid range: at most 31 days" });
      const badDate = await post({ from: "2026-13-01T00:00:00Z", to });
      assert.equal(badDate.status, 400);
      assert.match(badDate.body.error, /^Invalid field: from/);
      const missing = await post({ from });
      assert.deepEqual(missing.body, { error: "Missing required field: to" });
      const foreign = await post({ from, to }, other);
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, { error: "Webhook not found" });
      const removed = await org.api("DELETE", `/api/enterprise/webhooks/${hook.webhookId}`);
      assert.equal(removed.status, 200, removed.text);
      const deleted = await post({ from, to });
      assert.equal(deleted.status, 404);
      assert.deepEqual(deleted.body, { error: "Webhook not found" });
    });

    it("PATCH edits the event filter: unknown kinds are 400, the next events follow the new filter", async () => {
      const listed = await register(org, "/filter-listed", ["asset.listed"]);
      const watcher = await register(org, "/filter-watch");
      const unknown = await org.api("PATCH", `/api/enterprise/webhooks/${listed.webhookId}`, {
        body: { events: ["asset.issued", "asset.exploded"] },
      });
      assert.equal(unknown.status, 400);
      assert.match(
        unknown.body.error,
        /^Invalid field: events\.1 \(must be one of asset\.issued, /,
      );
      const empty = await org.api("PATCH", `/api/enterprise/webhooks/${listed.webhookId}`, {
        body: { events: [] },
      });
      assert.equal(empty.status, 400);
      const foreign = await other.api("PATCH", `/api/enterprise/webhooks/${listed.webhookId}`, {
        body: { events: ["asset.issued"] },
      });
      assert.equal(foreign.status, 404);

      // Still listed-only: an issuance reaches the watcher, not it.
      const first = await issue(org, "filter one");
      await receiver.waitFor(
        () =>
          deliveriesTo("/filter-watch", "asset.issued").some(
            (d) => String(d.json.data.tokenId) === first,
          ),
        20_000,
        "the watcher's delivery",
      );
      const { rows } = await stack.database.pool.query(
        `SELECT 1 FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       WHERE d.webhook_id = $1 AND e.kind = 'asset.issued'`,
        [listed.webhookId],
      );
      assert.equal(rows.length, 0);

      const patched = await org.api("PATCH", `/api/enterprise/webhooks/${listed.webhookId}`, {
        body: { events: ["asset.listed", "asset.issued", "asset.issued"] },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.body.events, ["asset.listed", "asset.issued"]);
      const second = await issue(org, "filter two");
      await receiver.waitFor(
        () =>
          deliveriesTo("/filter-listed", "asset.issued").some(
            (d) => String(d.json.data.tokenId) === second,
          ),
        20_000,
        "the re-filtered delivery",
      );
      assert.ok(watcher.webhookId);
    });

    it("the SDK edits the filter, rotates the secret and replays, with the API's errors", async () => {
      const hook = await register(org, "/sdk");
      const client = new RwaClient({ apiKey: org.apiKey, baseUrl: stack.baseUrl });
      const updated = await client.updateWebhook(hook.webhookId, { events: ["asset.sold"] });
      assert.deepEqual(updated.events, ["asset.sold"]);
      const rotated = await client.rotateWebhookSecret(hook.webhookId, {
        secret: "my-own-rotated-secret-0001",
      });
      assert.equal(rotated.secret, "my-own-rotated-secret-0001");
      const now = Date.now();
      const replay = await client.replayWebhook(hook.webhookId, {
        from: new Date(now - 3_600_000).toISOString(),
        to: new Date(now).toISOString(),
      });
      assert.equal(replay.webhookId, hook.webhookId);
      assert.equal(typeof replay.queued, "number");
      await assert.rejects(
        client.replayWebhook(hook.webhookId, {
          from: new Date(now).toISOString(),
          to: new Date(now - 1_000).toISOString(),
        }),
        (error: unknown) =>
          error instanceof ApiError &&
          error.status === 400 &&
          error.error === "Invalid range: from must be before to",
      );
    });

    it("a disabled webhook sends webhook.disabled to the organization's other webhooks and the list shows why", async () => {
      const solo = await stack.registerOrg();
      receiver.respond.set("/gone", () => ({ status: 410 }));
      const gone = await register(solo, "/gone");
      const sibling = await register(solo, "/sibling", ["asset.listed"]);
      const ping = await solo.api("POST", `/api/enterprise/webhooks/${gone.webhookId}/test`);
      assert.equal(ping.status, 202, ping.text);
      await receiver.waitFor(
        () => deliveriesTo("/sibling", "webhook.disabled").length === 1,
        20_000,
        "the webhook.disabled notice",
      );
      const notice = deliveriesTo("/sibling", "webhook.disabled")[0]!;
      verifyDelivery(notice, sibling.secret);
      assert.equal(notice.json.orgId, solo.orgId);
      assert.equal(notice.json.data.webhookId, gone.webhookId);
      assert.equal(notice.json.data.reason, "Receiver answered 410 Gone");
      assert.equal(notice.json.data.url, receiver.url("/gone"));
      const list = await solo.api("GET", "/api/enterprise/webhooks");
      const disabled = list.body.webhooks.find(
        (w: { webhookId: string }) => w.webhookId === gone.webhookId,
      );
      assert.equal(disabled.enabled, false);
      assert.equal(disabled.disabledReason, "Receiver answered 410 Gone");
      assert.equal(disabled.disabledAt, notice.json.data.disabledAt);
      // Not sent to the disabled webhook itself.
      assert.equal(deliveriesTo("/gone", "webhook.disabled").length, 0);
    });
  },
);
