import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";
import { assertError } from "../../support/assert-error.js";

const KEYS = "/api/enterprise/keys";
const WEBHOOKS = "/api/enterprise/webhooks";

describe("management endpoints: API keys and webhooks", () => {
  let stack: TestStack;
  let orgA: TestOrg;
  let orgB: TestOrg;
  /** Every secret handed out during the suite, checked against the logs at the end. */
  const secrets: string[] = [];

  before(async () => {
    stack = await startTestStack();
    [orgA, orgB] = await Promise.all([
      stack.registerOrg({ plan: "enterprise" }),
      stack.registerOrg({ plan: "enterprise" }),
    ]);
    secrets.push(orgA.apiKey, orgB.apiKey);
  });
  after(async () => {
    await stack?.stop();
  });

  describe("API keys", () => {
    it("GET lists the org's keys without the key string or its hash", async () => {
      const res = await orgA.api("GET", KEYS);
      assert.equal(res.status, 200);
      assert.equal(res.body.keys.length, 1);
      const [key] = res.body.keys;
      assert.equal(key.keyId, orgA.keyId);
      assert.equal(key.label, "default");
      assert.deepEqual(key.scopes, orgA.scopes);
      assert.equal(key.prefix, orgA.apiKey.slice(0, 17));
      assert.equal(key.revokedAt, null);
      assert.ok(!Number.isNaN(Date.parse(key.createdAt)));
      assert.ok(key.lastUsedAt !== null, "lastUsedAt is set by use");
      assert.ok(!res.text.includes(orgA.apiKey));
      assert.ok(!/[0-9a-f]{64}/.test(res.text), "no hash in the listing");
    });

    it("POST creates a key with a subset of the caller's scopes, shown once, and it works", async () => {
      const res = await orgA.api("POST", KEYS, { body: { scopes: ["read"], label: "reporting" } });
      assert.equal(res.status, 200, res.text);
      secrets.push(res.body.apiKey);
      assert.match(res.body.apiKey, /^rwa_live_[0-9a-f]{64}$/);
      assert.match(res.body.keyId, /^key_/);
      assert.deepEqual(res.body.scopes, ["read"]);
      assert.equal(res.body.label, "reporting");
      assert.equal(res.body.lastUsedAt, null);
      const wallet = await stack.api("GET", "/api/enterprise/wallet", { apiKey: res.body.apiKey });
      assert.equal(wallet.status, 200);
      assert.equal(wallet.body.walletAddress, orgA.walletAddress);
      const list = await orgA.api("GET", KEYS);
      const listed = list.body.keys.find((k: { keyId: string }) => k.keyId === res.body.keyId);
      assert.ok(listed);
      assert.equal(listed.apiKey, undefined);
    });

    it("POST refuses scopes the calling key does not have (403 Insufficient scope)", async () => {
      const res = await orgA.api("POST", KEYS, { body: { scopes: ["read", "admin:types"] } });
      assertError(res, 403, "Insufficient scope");
      const readOnly = await orgA.api("POST", KEYS, { body: { scopes: ["read"] } });
      secrets.push(readOnly.body.apiKey);
      const escalate = await stack.api("POST", KEYS, {
        apiKey: readOnly.body.apiKey,
        body: { scopes: ["write:issue"] },
      });
      assertError(escalate, 403, "Insufficient scope");
    });

    it("POST expands write:all on both sides", async () => {
      const all = await orgA.api("POST", KEYS, { body: { scopes: ["read", "write:all"] } });
      assert.equal(all.status, 200, all.text);
      secrets.push(all.body.apiKey);
      const sub = await stack.api("POST", KEYS, {
        apiKey: all.body.apiKey,
        body: { scopes: ["read", "write:transfer"] },
      });
      assert.equal(sub.status, 200, sub.text);
      secrets.push(sub.body.apiKey);
    });

    const badBodies: Array<[string, unknown, string]> = [
      ["scopes is missing", { label: "x" }, "Missing required field: scopes"],
      [
        "scopes is empty",
        { scopes: [] },
        "Invalid field: scopes (must be a non-empty array of scopes)",
      ],
      [
        "scopes is a string",
        { scopes: "read" },
        "Invalid field: scopes (Invalid input: expected array, received string)",
      ],
      [
        "label is too long",
        { scopes: ["read"], label: "l".repeat(101) },
        "Invalid field: label (must be 1 to 100 characters)",
      ],
      [
        "label is a number",
        { scopes: ["read"], label: 7 },
        "Invalid field: label (Invalid input: expected string, received number)",
      ],
      [
        "an unknown field is sent",
        { scopes: ["read"], expires: "never" },
        "Unknown field: expires",
      ],
    ];
    for (const [when, body, error] of badBodies) {
      it(`POST returns 400 when ${when}`, async () => {
        const res = await orgA.api("POST", KEYS, { body });
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body, { error });
      });
    }

    it("DELETE revokes a key (body form) and the key is refused at once", async () => {
      const created = await orgA.api("POST", KEYS, { body: { scopes: ["read"] } });
      secrets.push(created.body.apiKey);
      assert.equal((await stack.api("GET", KEYS, { apiKey: created.body.apiKey })).status, 200);
      const res = await orgA.api("DELETE", KEYS, { body: { keyId: created.body.keyId } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.keyId, created.body.keyId);
      assert.equal(res.body.revoked, true);
      assert.ok(!Number.isNaN(Date.parse(res.body.revokedAt)));
      const after = await stack.api("GET", "/api/enterprise/wallet", {
        apiKey: created.body.apiKey,
      });
      assertError(after, 401, "Unauthorized");
      const bearer = await stack.api("GET", KEYS, {
        headers: { authorization: `Bearer ${created.body.apiKey}` },
      });
      assert.equal(bearer.status, 401);
      const again = await orgA.api("DELETE", KEYS, { body: { keyId: created.body.keyId } });
      assert.equal(again.status, 200, "revoking twice is idempotent");
      assert.equal(again.body.revokedAt, res.body.revokedAt);
      const listed = (await orgA.api("GET", KEYS)).body.keys.find(
        (k: { keyId: string }) => k.keyId === created.body.keyId,
      );
      assert.equal(listed.revokedAt, res.body.revokedAt);
    });

    it("DELETE /keys/:keyId revokes too; a key may revoke itself", async () => {
      const created = await orgA.api("POST", KEYS, { body: { scopes: ["read"] } });
      secrets.push(created.body.apiKey);
      const res = await stack.api("DELETE", `${KEYS}/${created.body.keyId}`, {
        apiKey: created.body.apiKey,
      });
      assert.equal(res.status, 200, res.text);
      assert.equal((await stack.api("GET", KEYS, { apiKey: created.body.apiKey })).status, 401);
    });

    it("DELETE refuses to let a narrower key revoke a broader one (403)", async () => {
      const narrow = await orgA.api("POST", KEYS, { body: { scopes: ["read"] } });
      secrets.push(narrow.body.apiKey);
      const res = await stack.api("DELETE", KEYS, {
        apiKey: narrow.body.apiKey,
        body: { keyId: orgA.keyId },
      });
      assertError(res, 403, "Insufficient scope");
    });

    it("DELETE refuses to revoke the org's last active key (409)", async () => {
      const solo = await stack.registerOrg({ plan: "pro" });
      secrets.push(solo.apiKey);
      const res = await solo.api("DELETE", KEYS, { body: { keyId: solo.keyId } });
      assertError(res, 409, "Cannot revoke the last active key");
      assert.equal((await solo.api("GET", KEYS)).status, 200);
    });

    it("DELETE returns 400 without keyId and 404 for an unknown id", async () => {
      const missing = await orgA.api("DELETE", KEYS, { body: {} });
      assertError(missing, 400, "Missing required field: keyId");
      const noBody = await orgA.api("DELETE", KEYS);
      assertError(noBody, 400, "Missing required field: keyId");
      const unknown = await orgA.api("DELETE", KEYS, {
        body: { keyId: "key_000000000000000000000000" },
      });
      assertError(unknown, 404, "API key not found");
    });

    it("org B cannot see or revoke org A's keys (404, not 403)", async () => {
      const listB = await orgB.api("GET", KEYS);
      assert.deepEqual(
        listB.body.keys.map((k: { keyId: string }) => k.keyId),
        [orgB.keyId],
      );
      for (const call of [
        () => orgB.api("DELETE", KEYS, { body: { keyId: orgA.keyId } }),
        () => orgB.api("DELETE", `${KEYS}/${orgA.keyId}`),
      ]) {
        const res = await call();
        assertError(res, 404, "API key not found");
      }
      assert.equal((await orgA.api("GET", KEYS)).status, 200, "org A's key still works");
    });

    it("POST returns 409 Key limit reached past 50 active keys, even when the creations race, and a revocation frees a place", async () => {
      const org = await stack.registerOrg({ plan: "enterprise" });
      secrets.push(org.apiKey);
      // The registration's `default` key is the first of the 50; 54 more asked for at once.
      const answers = await Promise.all(
        Array.from({ length: 54 }, (_, i) =>
          org.api("POST", KEYS, { body: { scopes: ["read"], label: `bulk-${i}` } }),
        ),
      );
      const created = answers.filter((res) => res.status === 200);
      for (const res of created) secrets.push(res.body.apiKey);
      const refused = answers.filter((res) => res.status !== 200);
      assert.equal(created.length, 49, "the org row lock lets exactly 49 through");
      assert.equal(refused.length, 5);
      for (const res of refused)
        assertError(res, 409, "Key limit reached (50 active keys per organization)");
      const listed = (await org.api("GET", KEYS)).body.keys as Array<{ revokedAt: string | null }>;
      assert.equal(listed.filter((k) => k.revokedAt === null).length, 50);

      const over = await org.api("POST", KEYS, { body: { scopes: ["read"] } });
      assertError(over, 409, "Key limit reached (50 active keys per organization)");
      const revoked = await org.api("DELETE", `${KEYS}/${created[0]!.body.keyId}`);
      assert.equal(revoked.status, 200, revoked.text);
      const again = await org.api("POST", KEYS, { body: { scopes: ["read"] } });
      assert.equal(again.status, 200, again.text);
      secrets.push(again.body.apiKey);
    });
  });

  describe("webhooks", () => {
    it("POST registers a webhook with a generated secret, shown once", async () => {
      const res = await orgA.api("POST", WEBHOOKS, {
        body: {
          url: "https://hooks.example.com/rwa",
          events: ["asset.issued", "asset.sold", "asset.issued"],
        },
      });
      assert.equal(res.status, 200, res.text);
      secrets.push(res.body.secret);
      assert.match(res.body.webhookId, /^wh_[0-9a-f]{24}$/);
      assert.equal(res.body.url, "https://hooks.example.com/rwa");
      assert.deepEqual(res.body.events, ["asset.issued", "asset.sold"]);
      assert.match(res.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(res.body.enabled, true);
      const { rows } = await stack.database.pool.query(
        "SELECT encrypted_secret FROM webhooks WHERE id = $1",
        [res.body.webhookId],
      );
      assert.ok(!rows[0].encrypted_secret.includes(res.body.secret));
      assert.equal(
        stack.ctx.keyStore.open(rows[0].encrypted_secret, res.body.webhookId),
        res.body.secret,
      );
    });

    it("POST keeps a caller-chosen secret and never lists it", async () => {
      const secret = "my-very-own-secret-value-123";
      secrets.push(secret);
      const res = await orgA.api("POST", WEBHOOKS, {
        body: { url: "https://hooks.example.com/b", events: ["asset.listed"], secret },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.secret, secret);
      const list = await orgA.api("GET", WEBHOOKS);
      assert.equal(list.status, 200);
      assert.ok(list.body.webhooks.length >= 2);
      assert.ok(!list.text.includes(secret));
      assert.ok(list.body.webhooks.every((w: Record<string, unknown>) => w.secret === undefined));
    });

    it("allows local http URLs only because the test config sets webhookAllowLocal", async () => {
      const res = await orgA.api("POST", WEBHOOKS, {
        body: { url: "http://127.0.0.1:9999/hook", events: ["asset.issued"] },
      });
      assert.equal(res.status, 200, res.text);
      secrets.push(res.body.secret);
      stack.ctx.config.webhookAllowLocal = false;
      try {
        for (const url of [
          "http://127.0.0.1:9999/hook",
          "https://127.0.0.1/hook",
          "https://localhost/x",
          "https://10.1.2.3/x",
          "https://[::1]/x",
          "https://169.254.169.254/latest",
        ]) {
          const refused = await orgA.api("POST", WEBHOOKS, {
            body: { url, events: ["asset.issued"] },
          });
          assert.equal(refused.status, 400, url);
          assert.match(refused.body.error, /^Invalid field: url \(/);
        }
      } finally {
        stack.ctx.config.webhookAllowLocal = true;
      }
    });

    // The url rules, each with an otherwise valid body: [when, url, reason in the error].
    const badUrls: Array<[string, string, string]> = [
      ["the url is not https", "ftp://a.example/x", "must use https"],
      ["the url is plain http", "http://a.example/x", "must use https"],
      ["the url is not a URL", "not a url", "not a valid URL"],
      ["the url has credentials", "https://u:p@a.example/x", "must not contain credentials"],
      [
        "the url is too long",
        `https://a.example/${"a".repeat(2040)}`,
        "must be at most 2048 characters",
      ],
    ];
    const badBodies: Array<[string, unknown, string]> = [
      ["url is missing", { events: ["asset.issued"] }, "Missing required field: url"],
      ["events is missing", { url: "https://a.example" }, "Missing required field: events"],
      [
        "events is empty",
        { url: "https://a.example", events: [] },
        "Invalid field: events (must be a non-empty array of event kinds)",
      ],
      [
        "an event is unknown",
        { url: "https://a.example", events: ["asset.burned"] },
        "Invalid field: events.0 (must be one of asset.issued, asset.transferred, asset.listed, asset.sold, asset.delisted, asset.redeemed, wallet.low_balance, wallet.funded, asset.frozen, asset.unfrozen, asset.forced_transfer, market.paused, market.resumed, transaction.confirmed, transaction.failed, transaction.cancelled, transaction.expired, transaction.approval_required, transaction.stuck)",
      ],
      ...badUrls.map(([when, url, reason]): [string, unknown, string] => [
        when,
        { url, events: ["asset.issued"] },
        `Invalid field: url (${reason})`,
      ]),
      [
        "the secret is too short",
        { url: "https://a.example", events: ["asset.issued"], secret: "short" },
        "Invalid field: secret (must be 16 to 256 characters)",
      ],
      [
        "an unknown field is sent",
        { url: "https://a.example", events: ["asset.issued"], active: true },
        "Unknown field: active",
      ],
    ];
    for (const [when, body, error] of badBodies) {
      it(`POST returns 400 when ${when}`, async () => {
        assertError(await orgA.api("POST", WEBHOOKS, { body }), 400, error);
      });
    }

    it("DELETE removes a webhook (body and path forms); a second delete is 404", async () => {
      const one = await orgA.api("POST", WEBHOOKS, {
        body: { url: "https://a.example/1", events: ["asset.sold"] },
      });
      const two = await orgA.api("POST", WEBHOOKS, {
        body: { url: "https://a.example/2", events: ["asset.sold"] },
      });
      secrets.push(one.body.secret, two.body.secret);
      const del1 = await orgA.api("DELETE", WEBHOOKS, { body: { webhookId: one.body.webhookId } });
      assert.equal(del1.status, 200);
      assert.deepEqual(del1.body, { webhookId: one.body.webhookId, deleted: true });
      const del2 = await orgA.api("DELETE", `${WEBHOOKS}/${two.body.webhookId}`);
      assert.equal(del2.status, 200);
      const again = await orgA.api("DELETE", WEBHOOKS, { body: { webhookId: one.body.webhookId } });
      assertError(again, 404, "Webhook not found");
      const ids = (await orgA.api("GET", WEBHOOKS)).body.webhooks.map(
        (w: { webhookId: string }) => w.webhookId,
      );
      assert.ok(!ids.includes(one.body.webhookId) && !ids.includes(two.body.webhookId));
      const missing = await orgA.api("DELETE", WEBHOOKS, { body: {} });
      assert.deepEqual(missing.body, { error: "Missing required field: webhookId" });
    });

    it("org B cannot see or delete org A's webhooks (404)", async () => {
      const mine = await orgA.api("POST", WEBHOOKS, {
        body: { url: "https://a.example/iso", events: ["asset.issued"] },
      });
      secrets.push(mine.body.secret);
      const listB = await orgB.api("GET", WEBHOOKS);
      assert.equal(listB.status, 200);
      assert.deepEqual(listB.body.webhooks, []);
      for (const call of [
        () => orgB.api("DELETE", WEBHOOKS, { body: { webhookId: mine.body.webhookId } }),
        () => orgB.api("DELETE", `${WEBHOOKS}/${mine.body.webhookId}`),
      ]) {
        const res = await call();
        assertError(res, 404, "Webhook not found");
      }
      const listA = await orgA.api("GET", WEBHOOKS);
      assert.ok(
        listA.body.webhooks.some((w: { webhookId: string }) => w.webhookId === mine.body.webhookId),
      );
    });

    it("caps webhooks at 10 per organization (409)", async () => {
      const org = await stack.registerOrg({ plan: "pro" });
      secrets.push(org.apiKey);
      for (let i = 0; i < 10; i += 1) {
        const res = await org.api("POST", WEBHOOKS, {
          body: { url: `https://a.example/${i}`, events: ["asset.issued"] },
        });
        assert.equal(res.status, 200, res.text);
        secrets.push(res.body.secret);
      }
      const over = await org.api("POST", WEBHOOKS, {
        body: { url: "https://a.example/11", events: ["asset.issued"] },
      });
      assertError(over, 409, "Webhook limit reached (10 per organization)");
    });
  });

  it("the captured logs contain no API key, admin token, webhook secret or wallet key", async () => {
    const text = stack.logText();
    assert.ok(stack.logs.length > 20);
    for (const secret of secrets)
      assert.ok(!text.includes(secret), `secret leaked: ${secret.slice(0, 12)}...`);
    assert.ok(!text.includes(stack.adminToken));
    // The logger redacts secrets it recognises; the relayer should not even try to log one.
    assert.ok(!text.includes("[REDACTED]"), "something secret-looking was handed to the logger");
    const { rows } = await stack.database.pool.query("SELECT id, encrypted_key FROM wallets");
    for (const row of rows)
      assert.ok(!text.includes(stack.ctx.keyStore.open(row.encrypted_key, row.id).slice(2)));
  });
});
