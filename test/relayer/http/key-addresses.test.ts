import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEnv } from "../../../relayer/src/config.js";
import { ConfigError } from "../../../relayer/src/errors.js";
import { startTestStack, type TestOrg, type TestStack } from "../../support/stack.js";

/**
 * API keys bound to where they are used (docs/api-decisions.md "API keys bound to addresses"):
 * `allowedIps` at creation, 403 from anywhere else, and `TRUST_PROXY` deciding which hops'
 * `X-Forwarded-For` names the client. The stack listens on 127.0.0.1, so requests come from there.
 */
describe("API keys bound to addresses (PostgreSQL)", () => {
  let direct: TestStack;
  let proxied: TestStack;
  let org: TestOrg;
  let proxiedOrg: TestOrg;

  async function keyFor(who: TestOrg, allowedIps: unknown) {
    return who.api("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"], label: "bound", allowedIps },
    });
  }

  before(async () => {
    [direct, proxied] = await Promise.all([
      startTestStack({ logLevel: "warn" }),
      startTestStack({ logLevel: "warn", config: { trustProxy: 1 } }),
    ]);
    [org, proxiedOrg] = await Promise.all([direct.registerOrg(), proxied.registerOrg()]);
  });
  after(async () => {
    await direct?.stop();
    await proxied?.stop();
  });

  it("a key bound to the caller's address works, and lists its ranges in canonical form", async () => {
    const created = await keyFor(org, ["127.0.0.1", "10.1.2.3/8", "2001:db8::1/32"]);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(created.body.allowedIps, ["127.0.0.1/32", "10.0.0.0/8", "2001:db8::/32"]);
    const res = await direct.api("GET", "/api/enterprise/wallet", { apiKey: created.body.apiKey });
    assert.equal(res.status, 200, res.text);
    const listed = await org.api("GET", "/api/enterprise/keys");
    const row = listed.body.keys.find((k: { keyId: string }) => k.keyId === created.body.keyId);
    assert.deepEqual(row.allowedIps, ["127.0.0.1/32", "10.0.0.0/8", "2001:db8::/32"]);
    const unbound = listed.body.keys.find((k: { keyId: string }) => k.keyId === org.keyId);
    assert.equal(unbound.allowedIps, null);
  });

  it("a key bound elsewhere answers 403 from here, also as Bearer and when signing in to the console", async () => {
    const created = await keyFor(org, ["192.0.2.0/24"]);
    assert.equal(created.status, 200, created.text);
    const key = created.body.apiKey as string;
    const byHeader = await direct.api("GET", "/api/enterprise/wallet", { apiKey: key });
    assert.equal(byHeader.status, 403, byHeader.text);
    assert.equal(byHeader.body.error, "API key not allowed from this address");
    const byBearer = await direct.api("GET", "/api/enterprise/wallet", {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(byBearer.status, 403, byBearer.text);
    const signIn = await direct.api("POST", "/api/console/session", { body: { apiKey: key } });
    assert.equal(signIn.status, 403, signIn.text);
    assert.equal(signIn.headers.get("set-cookie"), null);
  });

  it("an IPv4 client matches an IPv6 range of IPv4-mapped addresses", async () => {
    const created = await keyFor(org, ["::ffff:127.0.0.0/104"]);
    assert.equal(created.status, 200, created.text);
    const res = await direct.api("GET", "/api/enterprise/wallet", { apiKey: created.body.apiKey });
    assert.equal(res.status, 200, res.text);
  });

  it("without TRUST_PROXY, X-Forwarded-For is not believed", async () => {
    const created = await keyFor(org, ["192.0.2.0/24"]);
    const res = await direct.api("GET", "/api/enterprise/wallet", {
      apiKey: created.body.apiKey,
      headers: { "x-forwarded-for": "192.0.2.7" },
    });
    assert.equal(res.status, 403, res.text);
  });

  it("with TRUST_PROXY=1 the address the one proxy appended counts, not what the client wrote before it", async () => {
    const created = await keyFor(proxiedOrg, ["192.0.2.0/24"]);
    assert.equal(created.status, 200, created.text);
    const key = created.body.apiKey as string;
    const fromBalancer = await proxied.api("GET", "/api/enterprise/wallet", {
      apiKey: key,
      headers: { "x-forwarded-for": "192.0.2.7" },
    });
    assert.equal(fromBalancer.status, 200, fromBalancer.text);
    const spoofed = await proxied.api("GET", "/api/enterprise/wallet", {
      apiKey: key,
      headers: { "x-forwarded-for": "192.0.2.7, 198.51.100.9" },
    });
    assert.equal(spoofed.status, 403, spoofed.text);
  });

  it("allowedIps that are not addresses or CIDR ranges answer 400 and create nothing", async () => {
    const before = (await org.api("GET", "/api/enterprise/keys")).body.keys.length;
    const cases: Array<[unknown, string]> = [
      [["not-an-ip"], "Invalid field: allowedIps.0 (not an IP address or CIDR range)"],
      [
        ["10.0.0.0/8", "10.0.0.0/33"],
        "Invalid field: allowedIps.1 (not an IP address or CIDR range)",
      ],
      [["0x7f.1"], "Invalid field: allowedIps.0 (not an IP address or CIDR range)"],
      [["2001:db8::/129"], "Invalid field: allowedIps.0 (not an IP address or CIDR range)"],
      [[], "Invalid field: allowedIps (must list at least one address or CIDR range)"],
      ["10.0.0.0/8", "Invalid field: allowedIps (Invalid input: expected array, received string)"],
    ];
    for (const [allowedIps, error] of cases) {
      const res = await keyFor(org, allowedIps);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, error);
    }
    assert.equal((await org.api("GET", "/api/enterprise/keys")).body.keys.length, before);
  });

  it("TRUST_PROXY takes false, a count of proxies or their addresses, and refuses true", () => {
    const base = { DATA_DIR: "/tmp/rwa-trust-proxy" };
    assert.equal(parseEnv(base).trustProxy, false);
    assert.equal(parseEnv({ ...base, TRUST_PROXY: "false" }).trustProxy, false);
    assert.equal(parseEnv({ ...base, TRUST_PROXY: "2" }).trustProxy, 2);
    assert.deepEqual(parseEnv({ ...base, TRUST_PROXY: "10.0.0.0/8, loopback" }).trustProxy, [
      "10.0.0.0/8",
      "loopback",
    ]);
    for (const bad of ["true", "0", "11", "10.0.0.0/99", "everyone"])
      assert.throws(() => parseEnv({ ...base, TRUST_PROXY: bad }), ConfigError, bad);
  });
});
