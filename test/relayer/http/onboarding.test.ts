import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { getAddress } from "ethers";
import { AssetTypeRegistry__factory } from "../../../typechain-types/factories/AssetTypeRegistry__factory.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { assertError } from "../../support/assert-error.js";

const REGISTER = "/api/enterprise/register";
describe("POST /api/enterprise/register", () => {
  let stack: TestStack;
  const register = (body: unknown, adminToken?: string) =>
    stack.api("POST", REGISTER, { body, adminToken: adminToken ?? stack.adminToken });

  before(async () => {
    stack = await startTestStack();
  });
  after(async () => {
    await stack?.stop();
  });

  it("onboards an org with defaults: id, wallet, key shown once, default scopes, free plan", async () => {
    const res = await register({ orgName: "Acme Holdings" });
    assert.equal(res.status, 200);
    const body = res.body;
    assert.match(body.orgId, /^org_[0-9a-f]{24}$/);
    assert.equal(body.orgName, "Acme Holdings");
    assert.match(body.apiKey, /^rwa_live_[0-9a-f]{64}$/);
    assert.match(body.keyId, /^key_[0-9a-f]{24}$/);
    assert.equal(body.walletAddress, getAddress(body.walletAddress));
    assert.deepEqual(body.scopes, [
      "read",
      "write:issue",
      "write:transfer",
      "write:marketplace",
      "webhooks",
    ]);
    assert.equal(body.plan, "free");
    // `devFaucet` only on the local chain with the dev faucet on (as here).
    assert.deepEqual(Object.keys(body).sort(), [
      "apiKey",
      "devFaucet",
      "keyId",
      "orgId",
      "orgName",
      "plan",
      "scopes",
      "walletAddress",
    ]);
  });

  it("stores only the key hash and an encrypted wallet key", async () => {
    const res = await register({ orgName: "Hash Check", plan: "pro" });
    const { rows: keys } = await stack.database.pool.query(
      "SELECT * FROM api_keys WHERE org_id = $1",
      [res.body.orgId],
    );
    assert.equal(keys.length, 1);
    assert.notEqual(keys[0].key_hash, res.body.apiKey);
    assert.ok(!JSON.stringify(keys).includes(res.body.apiKey.slice(9)));
    const { rows: wallets } = await stack.database.pool.query(
      "SELECT * FROM wallets WHERE org_id = $1",
      [res.body.orgId],
    );
    assert.equal(wallets.length, 1);
    assert.match(wallets[0].encrypted_key, /^v1:/);
    const privateKey = stack.ctx.keyStore.open(wallets[0].encrypted_key, wallets[0].id);
    assert.match(privateKey, /^0x[0-9a-f]{64}$/);
    assert.ok(!stack.logText().includes(privateKey.slice(2)), "private key must not be logged");
  });

  it("funds the new wallet from the dev faucet (balance visible through GET /wallet)", async () => {
    const org = await stack.registerOrg({ plan: "pro" });
    const res = await org.api("GET", "/api/enterprise/wallet");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      walletAddress: org.walletAddress,
      balance: "10",
      balanceWei: (10n * 10n ** 18n).toString(),
      chain: 1236,
    });
  });

  it("grants REGISTRAR_ROLE on-chain to an org with admin:types, and not to others", async () => {
    const registrar = await stack.registerOrg({
      plan: "enterprise",
      scopes: ["read", "admin:types"],
    });
    const plain = await stack.registerOrg({ plan: "enterprise" });
    const registry = AssetTypeRegistry__factory.connect(
      stack.ctx.contracts.assetTypeRegistry,
      stack.ctx.provider,
    );
    const role = await registry.getFunction("REGISTRAR_ROLE")();
    assert.equal(await registry.getFunction("hasRole")(role, registrar.walletAddress), true);
    assert.equal(await registry.getFunction("hasRole")(role, plain.walletAddress), false);
    const { rows } = await stack.database.pool.query(
      "SELECT is_registrar FROM wallets WHERE org_id = $1",
      [registrar.orgId],
    );
    assert.equal(rows[0].is_registrar, true);
  });

  it("registers 25 orgs at once (more than the pool's 20 connections) without operator nonce collisions", async () => {
    const orgs = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        stack.registerOrg({ plan: "pro", scopes: i % 2 ? ["read", "admin:types"] : undefined }),
      ),
    );
    const balances = await Promise.all(
      orgs.map((org) => stack.ctx.provider.getBalance(org.walletAddress)),
    );
    for (const balance of balances) assert.equal(balance, 10n * 10n ** 18n);
  });

  it("accepts custom scopes on paid plans and write:all as a scope", async () => {
    for (const plan of ["basic", "pro", "enterprise"]) {
      const res = await register({
        orgName: `Custom ${plan}`,
        plan,
        scopes: ["read", "write:all"],
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.scopes, ["read", "write:all"]);
      assert.equal(res.body.plan, plan);
    }
  });

  it("accepts walletMode custodial and trims orgName", async () => {
    const res = await register({ orgName: "  Trimmed  ", walletMode: "custodial", plan: "pro" });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.orgName, "Trimmed");
  });

  const rejected: Array<[string, unknown, string]> = [
    ["orgName is missing", { plan: "pro" }, "Missing required field: orgName"],
    ["orgName is null", { orgName: null }, "Missing required field: orgName"],
    [
      "orgName is a number",
      { orgName: 42 },
      "Invalid field: orgName (Invalid input: expected string, received number)",
    ],
    [
      "orgName is empty",
      { orgName: "   " },
      "Invalid field: orgName (must be 1 to 100 characters)",
    ],
    [
      "orgName is over 100 chars",
      { orgName: "x".repeat(101) },
      "Invalid field: orgName (must be 1 to 100 characters)",
    ],
    [
      "walletMode is not custodial",
      { orgName: "A", walletMode: "self" },
      'Invalid field: walletMode (only "custodial" is supported)',
    ],
    [
      "scopes is not an array",
      { orgName: "A", plan: "pro", scopes: "read" },
      "Invalid field: scopes (Invalid input: expected array, received string)",
    ],
    [
      "scopes is empty",
      { orgName: "A", plan: "pro", scopes: [] },
      "Invalid field: scopes (must be a non-empty array of scopes)",
    ],
    [
      "scopes has an unknown scope",
      { orgName: "A", plan: "pro", scopes: ["read", "root"] },
      "Invalid field: scopes.1 (must be one of read, write:issue, write:transfer, write:marketplace, webhooks, admin:types, write:all)",
    ],
    [
      "plan is unknown",
      { orgName: "A", plan: "gold" },
      "Invalid field: plan (must be one of free, basic, pro, enterprise)",
    ],
    ["an unknown field is sent", { orgName: "A", colour: "red" }, "Unknown field: colour"],
    [
      "custom scopes are asked on the free plan",
      { orgName: "A", scopes: ["read", "admin:types"] },
      "Custom scopes are not available on the free plan (use basic, pro or enterprise)",
    ],
    ["the body is an array", [], "Request body must be a JSON object"],
  ];
  for (const [when, body, error] of rejected) {
    it(`returns 400 when ${when}`, async () => {
      const res = await register(body);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, { error });
    });
  }

  it("returns 400 Missing required field when the body is absent", async () => {
    const res = await stack.api("POST", REGISTER, { adminToken: stack.adminToken });
    assertError(res, 400, "Missing required field: orgName");
  });

  it("returns 403 Admin token required without, with a wrong or a malformed admin token", async () => {
    const wrong = `ent_admin_${"0".repeat(64)}`;
    for (const token of [
      undefined,
      wrong,
      "nope",
      stack.adminToken + "x",
      stack.adminToken.toUpperCase(),
    ]) {
      const res = await stack.api("POST", REGISTER, {
        body: { orgName: "Nope" },
        headers: token === undefined ? {} : { "x-admin-token": token },
      });
      assertError(res, 403, "Admin token required");
    }
  });

  it("does not accept an API key in place of the admin token", async () => {
    const org = await stack.registerOrg({ plan: "pro" });
    const res = await org.api("POST", REGISTER, { body: { orgName: "Escalate" } });
    assertError(res, 403, "Admin token required");
  });

  it("never logs the admin token, API keys or wallet private keys", async () => {
    const text = stack.logText();
    assert.ok(text.length > 0);
    assert.ok(!text.includes(stack.adminToken.slice(10)), "admin token leaked");
    assert.ok(!/rwa_live_[0-9a-f]{64}/.test(text), "an API key leaked");
    const { rows } = await stack.database.pool.query("SELECT id, encrypted_key FROM wallets");
    for (const row of rows) {
      const privateKey = stack.ctx.keyStore.open(row.encrypted_key, row.id);
      assert.ok(!text.includes(privateKey.slice(2)), "a wallet private key leaked");
    }
  });

  it("answers 503 RPC unavailable when the chain node is down, and stores nothing", async () => {
    const org = await stack.registerOrg({ plan: "pro" });
    const before = await stack.database.pool.query("SELECT count(*)::int AS n FROM orgs");
    await stack.anvil.stop();
    const wallet = await org.api("GET", "/api/enterprise/wallet");
    assertError(wallet, 503, "RPC unavailable");
    const res = await register({ orgName: "During outage", plan: "pro" });
    assertError(res, 503, "RPC unavailable");
    const afterCount = await stack.database.pool.query("SELECT count(*)::int AS n FROM orgs");
    assert.equal(afterCount.rows[0].n, before.rows[0].n);
    // management endpoints that do not touch the chain keep working
    const keys = await org.api("GET", "/api/enterprise/keys");
    assert.equal(keys.status, 200);
  });
});
