import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { assertError } from "../../support/assert-error.js";

/**
 * Endpoint x scope table: for each management endpoint, the scopes that let a key through.
 * A request that passes the scope check may still fail validation (400) or lookup (404): what
 * matters here is 403 `Insufficient scope` exactly when the key lacks every allowed scope.
 */
const ENDPOINTS: Array<{ method: string; path: string; body?: unknown; allowed: string[] }> = [
  { method: "GET", path: "/api/enterprise/wallet", allowed: ["read"] },
  { method: "GET", path: "/api/enterprise/keys", allowed: ["read"] },
  { method: "POST", path: "/api/enterprise/keys", body: { scopes: ["read"] }, allowed: ["read"] },
  {
    method: "DELETE",
    path: "/api/enterprise/keys",
    body: { keyId: "key_000000000000000000000000" },
    allowed: ["read"],
  },
  {
    method: "DELETE",
    path: "/api/enterprise/keys/key_000000000000000000000000",
    allowed: ["read"],
  },
  { method: "GET", path: "/api/enterprise/webhooks", allowed: ["webhooks", "read"] },
  {
    method: "POST",
    path: "/api/enterprise/webhooks",
    body: { url: "https://a.example/h", events: ["asset.issued"] },
    allowed: ["webhooks"],
  },
  {
    method: "DELETE",
    path: "/api/enterprise/webhooks",
    body: { webhookId: "wh_000000000000000000000000" },
    allowed: ["webhooks"],
  },
  {
    method: "DELETE",
    path: "/api/enterprise/webhooks/wh_000000000000000000000000",
    allowed: ["webhooks"],
  },
];

/** Key scope sets under test; `write:all` must not grant read or webhooks. */
const KEY_SCOPES: string[][] = [
  ["read"],
  ["write:issue"],
  ["write:transfer"],
  ["write:marketplace"],
  ["write:all"],
  ["webhooks"],
  ["admin:types"],
  ["read", "webhooks"],
];

describe("scope enforcement (endpoint x scope)", () => {
  let stack: TestStack;
  const keys = new Map<string, string>();

  before(async () => {
    stack = await startTestStack();
    const org = await stack.registerOrg({
      plan: "enterprise",
      scopes: ["read", "write:all", "webhooks", "admin:types"],
    });
    for (const scopes of KEY_SCOPES) {
      const res = await org.api("POST", "/api/enterprise/keys", {
        body: { scopes, label: scopes.join("+") },
      });
      assert.equal(res.status, 200, res.text);
      keys.set(scopes.join("+"), res.body.apiKey);
    }
  });
  after(async () => {
    await stack?.stop();
  });

  for (const endpoint of ENDPOINTS) {
    for (const scopes of KEY_SCOPES) {
      const allowed = scopes.some((scope) => endpoint.allowed.includes(scope));
      it(`${endpoint.method} ${endpoint.path} with [${scopes.join(", ")}] → ${allowed ? "allowed" : "403"}`, async () => {
        const res = await stack.api(endpoint.method, endpoint.path, {
          apiKey: keys.get(scopes.join("+"))!,
          body: endpoint.body,
        });
        if (allowed) {
          assert.notEqual(res.status, 403, res.text);
          assert.ok(res.status < 500, res.text);
        } else {
          assertError(res, 403, "Insufficient scope");
        }
      });
    }
  }
});
