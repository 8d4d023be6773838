import assert from "node:assert/strict";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { hashApiKey } from "../../../relayer/src/auth/api-key-format.js";
import type { AppContext } from "../../../relayer/src/context.js";
import { createApp } from "../../../relayer/src/http/app.js";
import { createAppContext, releaseAppServices } from "../../../relayer/src/create-app-context.js";
import { assertError } from "../../support/assert-error.js";
import { httpRequest, type ApiCallOptions } from "../../support/http-request.js";
import { startTestStack, type TestStack } from "../../support/stack.js";

const ORGS = "/api/enterprise/orgs";

/**
 * Operator controls over organizations (docs/api-decisions.md "Operator controls") and key
 * hygiene: the org list, plan changes and suspension taking effect on the next request (in this
 * process and in a second one sharing the database), revoking any key, key expiry and last use.
 */
describe("operator controls over organizations", () => {
  let stack: TestStack;
  /** A second relayer "process": its own context (key cache, notifier) and HTTP server. */
  let other: { ctx: AppContext; server: Server; url: string };

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    const ctx = createAppContext({
      config: stack.ctx.config,
      logger: stack.ctx.logger,
      database: stack.database,
      rpcUrl: stack.rpcUrl,
      contracts: stack.ctx.contracts,
      isLocalChain: true,
    });
    await ctx.engine.notifier.start();
    const server = createApp(ctx).listen(0, "127.0.0.1");
    await once(server, "listening");
    other = { ctx, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  });
  after(async () => {
    if (other !== undefined) {
      await new Promise((resolve) => other.server.close(resolve));
      await releaseAppServices(other.ctx);
    }
    await stack?.stop();
  });

  const admin = (method: string, path: string, options: ApiCallOptions = {}) =>
    stack.api(method, path, { adminToken: stack.adminToken, ...options });
  const viaOther = (method: string, path: string, options: ApiCallOptions = {}) =>
    httpRequest(other.url, method, path, options);
  /** Resolves when the second process hears that `orgId` changed. */
  const heardChange = (orgId: string) =>
    new Promise<void>((resolve) => {
      const listener = (id: string) => {
        if (id !== orgId) return;
        other.ctx.engine.notifier.off("orgChanged", listener);
        resolve();
      };
      other.ctx.engine.notifier.on("orgChanged", listener);
    });

  it("GET /api/enterprise/orgs pages through organizations and finds them by name, ignoring case", async () => {
    const tag = `Zq${Date.now().toString(36)}`;
    const first = await stack.registerOrg({ orgName: `${tag} Alpha`, plan: "basic" });
    const second = await stack.registerOrg({ orgName: `Beta ${tag.toUpperCase()} 100%` });
    await stack.registerOrg({ orgName: "Unrelated" });

    const page1 = await admin("GET", `${ORGS}?q=${tag.toLowerCase()}&limit=1`);
    assert.equal(page1.status, 200, page1.text);
    assert.equal(page1.body.data.length, 1);
    assert.deepEqual(page1.body.data[0], {
      orgId: first.orgId,
      orgName: `${tag} Alpha`,
      plan: "basic",
      scopes: first.scopes,
      suspended: false,
      suspendedAt: null,
      walletAddress: first.walletAddress,
      keyCount: 1,
      createdAt: page1.body.data[0].createdAt,
    });
    assert.equal(typeof page1.body.nextCursor, "string");
    const page2 = await admin(
      "GET",
      `${ORGS}?q=${tag.toLowerCase()}&limit=1&cursor=${page1.body.nextCursor}`,
    );
    assert.equal(page2.status, 200, page2.text);
    assert.deepEqual(
      page2.body.data.map((o: { orgId: string }) => o.orgId),
      [second.orgId],
    );
    assert.equal(page2.body.nextCursor, null);

    // LIKE's wildcards are matched literally.
    const literal = await admin("GET", `${ORGS}?q=${encodeURIComponent("100%")}`);
    assert.deepEqual(
      literal.body.data.map((o: { orgId: string }) => o.orgId),
      [second.orgId],
    );
    const all = await admin("GET", ORGS);
    assert.ok(all.body.data.length >= 3);
  });

  it("the org list refuses a bad cursor or limit with 400 and anyone without the admin token with 403", async () => {
    assertError(await admin("GET", `${ORGS}?cursor=nonsense`), 400, "Invalid cursor");
    assertError(
      await admin("GET", `${ORGS}?limit=0`),
      400,
      "Invalid field: limit (must be an integer from 1 to 100)",
    );
    const org = await stack.registerOrg();
    assertError(await org.api("GET", ORGS), 403, "Admin token required");
  });

  it("a plan change applies from the org's next request, in this process and in another", async () => {
    const org = await stack.registerOrg({ plan: "free" });
    // Both processes have looked the key up (and would reuse it for 2 s).
    for (let i = 0; i < 5; i++)
      assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
    for (let i = 0; i < 5; i++) {
      const res = await viaOther("GET", "/api/enterprise/keys", { apiKey: org.apiKey });
      assert.equal(res.status, 200, res.text);
    }
    assertError(await org.api("GET", "/api/enterprise/keys"), 429, "Rate limit exceeded");

    const heard = heardChange(org.orgId);
    const res = await admin("PATCH", `${ORGS}/${org.orgId}`, { body: { plan: "pro" } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.org.plan, "pro");
    assert.deepEqual(res.body.changes, { plan: { from: "free", to: "pro" } });
    assert.equal((await org.api("GET", "/api/enterprise/keys")).status, 200);
    await heard;
    assert.equal(
      (await viaOther("GET", "/api/enterprise/keys", { apiKey: org.apiKey })).status,
      200,
    );
  });

  it("a suspended org's keys and console session get 403 until it is resumed, in every process", async () => {
    const org = await stack.registerOrg();
    const signIn = await stack.api("POST", "/api/console/session", {
      body: { apiKey: org.apiKey },
    });
    assert.equal(signIn.status, 200, signIn.text);
    const cookie = /rwa_session=([^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")![1]!;
    const withCookie = { headers: { cookie: `rwa_session=${cookie}` } };
    assert.equal((await stack.api("GET", "/api/enterprise/wallet", withCookie)).status, 200);
    assert.equal((await org.api("GET", "/api/enterprise/wallet")).status, 200);
    assert.equal(
      (await viaOther("GET", "/api/enterprise/wallet", { apiKey: org.apiKey })).status,
      200,
    );

    const heard = heardChange(org.orgId);
    const suspend = await admin("PATCH", `${ORGS}/${org.orgId}`, { body: { suspended: true } });
    assert.equal(suspend.status, 200, suspend.text);
    assert.equal(suspend.body.org.suspended, true);
    assert.equal(typeof suspend.body.org.suspendedAt, "string");
    assertError(await org.api("GET", "/api/enterprise/wallet"), 403, "Organization suspended");
    assertError(
      await stack.api("GET", "/api/enterprise/wallet", withCookie),
      403,
      "Organization suspended",
    );
    assertError(
      await stack.api("POST", "/api/console/session", { body: { apiKey: org.apiKey } }),
      403,
      "Organization suspended",
    );
    await heard;
    assertError(
      await viaOther("GET", "/api/enterprise/wallet", { apiKey: org.apiKey }),
      403,
      "Organization suspended",
    );

    // Suspending again changes nothing (the first suspendedAt stays).
    const again = await admin("PATCH", `${ORGS}/${org.orgId}`, { body: { suspended: true } });
    assert.deepEqual(again.body.changes, {});
    assert.equal(again.body.org.suspendedAt, suspend.body.org.suspendedAt);

    const resume = await admin("PATCH", `${ORGS}/${org.orgId}`, { body: { suspended: false } });
    assert.deepEqual(resume.body.changes, { suspended: { from: true, to: false } });
    assert.equal((await org.api("GET", "/api/enterprise/wallet")).status, 200);
    assert.equal((await stack.api("GET", "/api/enterprise/wallet", withCookie)).status, 200);
    assert.equal(
      (await viaOther("GET", "/api/enterprise/wallet", { apiKey: org.apiKey })).status,
      200,
    );
  });

  it("PATCH refuses an unknown org with 404 and a bad body with 400", async () => {
    const org = await stack.registerOrg();
    assertError(
      await admin("PATCH", `${ORGS}/org_doesnotexist`, { body: { suspended: true } }),
      404,
      "Organization not found",
    );
    assertError(
      await admin("PATCH", `${ORGS}/${org.orgId}`, { body: {} }),
      400,
      "Invalid field: body (give plan and/or suspended)",
    );
    assertError(
      await admin("PATCH", `${ORGS}/${org.orgId}`, { body: { plan: "gold" } }),
      400,
      "Invalid field: plan (must be one of free, basic, pro, enterprise)",
    );
    assertError(
      await admin("PATCH", `${ORGS}/${org.orgId}`, { body: { suspended: "yes" } }),
      400,
      "Invalid field: suspended (must be true or false)",
    );
    assertError(
      await admin("PATCH", `${ORGS}/${org.orgId}`, { body: { suspended: true, name: "x" } }),
      400,
      "Unknown field: name",
    );
    assertError(
      await org.api("PATCH", `${ORGS}/${org.orgId}`, { body: { suspended: true } }),
      403,
      "Admin token required",
    );
    const unchanged = await admin("GET", `${ORGS}?q=${encodeURIComponent(org.orgName)}`);
    assert.equal(unchanged.body.data[0].suspended, false);
  });

  it("operator staff list an org's keys by prefix only and revoke any of them; another org's key is 404", async () => {
    const [alice, bob] = await Promise.all([stack.registerOrg(), stack.registerOrg()]);
    const extra = await alice.api("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"], label: "extra" },
    });
    assert.equal(extra.status, 200, extra.text);

    const keys = await admin("GET", `${ORGS}/${alice.orgId}/keys`);
    assert.equal(keys.status, 200, keys.text);
    assert.equal(keys.body.keys.length, 2);
    for (const key of keys.body.keys as Array<Record<string, unknown>>) {
      assert.equal(key.apiKey, undefined);
      assert.ok(alice.apiKey.startsWith(String(key.prefix)) || String(key.prefix).length < 20);
      assert.ok(!JSON.stringify(key).includes(alice.apiKey));
    }
    assertError(await admin("GET", `${ORGS}/org_doesnotexist/keys`), 404, "Organization not found");

    // Bob's org id with Alice's key: not found, and the key still works.
    assertError(
      await admin("DELETE", `${ORGS}/${bob.orgId}/keys/${alice.keyId}`),
      404,
      "API key not found",
    );
    assertError(
      await admin("DELETE", `${ORGS}/org_doesnotexist/keys/${alice.keyId}`),
      404,
      "Organization not found",
    );
    assert.equal((await alice.api("GET", "/api/enterprise/wallet")).status, 200);
    assert.equal(
      (await viaOther("GET", "/api/enterprise/wallet", { apiKey: alice.apiKey })).status,
      200,
    );

    // Even the org's first key, and the other process refuses it as soon as it hears.
    const heard = heardChange(alice.orgId);
    const revoked = await admin("DELETE", `${ORGS}/${alice.orgId}/keys/${alice.keyId}`);
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal(revoked.body.keyId, alice.keyId);
    assert.equal(revoked.body.revoked, true);
    assertError(await alice.api("GET", "/api/enterprise/wallet"), 401, "Unauthorized");
    await heard;
    assertError(
      await viaOther("GET", "/api/enterprise/wallet", { apiKey: alice.apiKey }),
      401,
      "Unauthorized",
    );
    const twice = await admin("DELETE", `${ORGS}/${alice.orgId}/keys/${alice.keyId}`);
    assert.equal(twice.body.revokedAt, revoked.body.revokedAt);
    const listed = await admin("GET", ORGS + `?q=${encodeURIComponent(alice.orgName)}`);
    assert.equal(listed.body.data[0].keyCount, 1);
    assert.equal((await bob.api("GET", "/api/enterprise/wallet")).status, 200);
  });

  it("a key created with a past or malformed expiresAt is refused with 400", async () => {
    const org = await stack.registerOrg();
    assertError(
      await org.api("POST", "/api/enterprise/keys", {
        body: { scopes: ["read"], expiresAt: new Date(Date.now() - 60_000).toISOString() },
      }),
      400,
      "Invalid field: expiresAt (must be in the future)",
    );
    for (const bad of ["tomorrow", "2030-13-01T00:00:00Z", "2030-01-01", 1893456000]) {
      const res = await org.api("POST", "/api/enterprise/keys", {
        body: { scopes: ["read"], expiresAt: bad },
      });
      assert.equal(res.status, 400, `${String(bad)}: ${res.text}`);
      assert.match(res.body.error, /^Invalid field: expiresAt \(/);
    }
  });

  it("a key answers 401 API key expired once its expiresAt has passed, even right after a cached lookup, and no longer counts as active", async () => {
    const org = await stack.registerOrg();
    const expiresAt = new Date(Date.now() + 1_500);
    const created = await org.api("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"], label: "short-lived", expiresAt: expiresAt.toISOString() },
    });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.expiresAt, expiresAt.toISOString());
    const key = String(created.body.apiKey);
    // Looked up and remembered now; the cache would keep it for 2 s, past its expiry.
    assert.equal((await stack.api("GET", "/api/enterprise/keys", { apiKey: key })).status, 200);
    while (Date.now() <= expiresAt.getTime()) await new Promise((r) => setTimeout(r, 50));
    assertError(
      await stack.api("GET", "/api/enterprise/keys", { apiKey: key }),
      401,
      "API key expired",
    );
    const signIn = await stack.api("POST", "/api/console/session", { body: { apiKey: key } });
    assertError(signIn, 401, "API key expired");
    const listed = await org.api("GET", "/api/enterprise/keys");
    const summary = (listed.body.keys as Array<Record<string, unknown>>).find(
      (k) => k.keyId === created.body.keyId,
    );
    assert.equal(summary?.expiresAt, expiresAt.toISOString());
    // The expired key does not count as another active key: the org keeps its last usable one.
    assertError(
      await org.api("DELETE", `/api/enterprise/keys/${org.keyId}`),
      409,
      "Cannot revoke the last active key",
    );
  });

  it("last use is shown in the key list and written at most once a minute, not per request", async () => {
    const org = await stack.registerOrg();
    const lastUsed = async () =>
      (
        await stack.database.pool.query<{ t: Date | null }>(
          "SELECT last_used_at AS t FROM api_keys WHERE id = $1",
          [org.keyId],
        )
      ).rows[0]!.t;
    assert.equal((await org.api("GET", "/api/enterprise/wallet")).status, 200);
    const first = await lastUsed();
    assert.ok(first !== null);
    // A lookup that misses the cache (as after 2 s, or in another process) does not write again.
    other.ctx.apiKeys.forget(org.keyId);
    assert.ok(other.ctx.apiKeys.get(hashApiKey(org.apiKey)) === undefined);
    assert.equal(
      (await viaOther("GET", "/api/enterprise/wallet", { apiKey: org.apiKey })).status,
      200,
    );
    assert.deepEqual(await lastUsed(), first);
    const listed = await org.api("GET", "/api/enterprise/keys");
    assert.equal(listed.body.keys[0].lastUsedAt, first.toISOString());
    assert.equal(listed.body.keys[0].apiKey, undefined);
  });
});
