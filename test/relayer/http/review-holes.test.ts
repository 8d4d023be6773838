import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";

/**
 * The small holes issue 23 names, each as its review found it: an impossible date in a
 * transactions cursor (was 500), the session read losing `no-store` (was `no-cache`, no
 * `Vary: Cookie`), and public asset reads naming the issuing organization.
 */
describe("holes found in review (anvil + PostgreSQL)", () => {
  let stack: TestStack;
  let org: TestOrg;
  let cookie: string;

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    org = await stack.registerOrg();
    const res = await fetch(`${stack.baseUrl}/api/console/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiKey: org.apiKey }),
    });
    assert.equal(res.status, 200, await res.text());
    const value = /rwa_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
    assert.ok(value !== undefined);
    cookie = `rwa_session=${value}`;
  });
  after(() => stack?.stop());

  it("GET /api/v1/transactions answers 400 Invalid cursor to well-formed cursors holding impossible dates", async () => {
    const cursor = (t: string) =>
      Buffer.from(JSON.stringify({ t, i: "tx_abc" }), "utf8").toString("base64url");
    for (const t of [
      "2026-13-01T00:00:00.000000Z",
      "2026-02-30T00:00:00.000000Z",
      "2026-01-01T24:00:00.000000Z",
      "0000-01-01T00:00:00.000000Z",
    ]) {
      const res = await org.api("GET", `/api/v1/transactions?cursor=${cursor(t)}`);
      assert.deepEqual([res.status, res.body], [400, { error: "Invalid cursor" }], t);
    }
    const fine = await org.api(
      "GET",
      `/api/v1/transactions?cursor=${cursor("2026-01-31T23:59:59.999999Z")}`,
    );
    assert.equal(fine.status, 200, fine.text);
  });

  it("cookie-bound reads are Cache-Control: no-store with Vary: Cookie, the session's CSRF token included", async () => {
    for (const path of ["/api/console/session", "/api/enterprise/wallet/alerts"]) {
      const res = await fetch(`${stack.baseUrl}${path}`, { headers: { cookie } });
      assert.equal(res.status, 200, `${path}: ${await res.text()}`);
      assert.equal(res.headers.get("cache-control"), "no-store", path);
      assert.match(res.headers.get("vary") ?? "", /\bCookie\b/, path);
      assert.equal(res.headers.get("etag"), null, `${path}: nothing to revalidate`);
    }
    // The same read with an API key keeps its revalidation (private, ETag).
    const keyed = await org.api("GET", "/api/enterprise/wallet/alerts");
    assert.equal(keyed.headers.get("cache-control"), "private, no-cache");
  });
});
