import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { JsonRpcProvider, parseEther, toBeHex } from "ethers";
import { startTestStack, type TestStack } from "../../support/stack.js";

/**
 * The operator account (anvil's first account on the local chain) pays the dev faucet, role
 * grants and staff-registered asset types. Drained with `anvil_setBalance`, every operator action
 * answers at once: registration goes ahead without the faucet and says so; a role grant or an
 * asset type it cannot pay for is 503 naming the account's balance. Never a hang, never a 500.
 */
describe("operator account out of funds", { timeout: 120_000 }, () => {
  let stack: TestStack;
  let provider: JsonRpcProvider;
  const FAUCET = "10"; // the test stack's faucet grant, in coin

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    provider = new JsonRpcProvider(stack.rpcUrl, 1236, { staticNetwork: true });
  });
  after(async () => {
    provider?.destroy();
    await stack?.stop();
  });

  const setOperatorBalance = (coin: string) =>
    provider.send("anvil_setBalance", [stack.ctx.operator.address, toBeHex(parseEther(coin))]);

  const register = async (body: Record<string, unknown>) => {
    const started = performance.now();
    const res = await stack.api("POST", "/api/enterprise/register", {
      adminToken: stack.adminToken,
      body: { orgName: `Org ${Math.random()}`, plan: "enterprise", ...body },
    });
    return { res, ms: performance.now() - started };
  };

  const orgCount = async () =>
    Number(
      (await stack.database.pool.query<{ n: string }>("SELECT count(*) AS n FROM orgs")).rows[0]!.n,
    );

  it("with funds, registration reports the faucet's grant", async () => {
    const { res } = await register({});
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.devFaucet.funded, true);
    assert.equal(res.body.devFaucet.amount, FAUCET);
    assert.match(res.body.devFaucet.txHash, /^0x[0-9a-f]{64}$/);
  });

  it("an operator short of the faucet's amount registers the org at once without it, and says why", async () => {
    await setOperatorBalance("0.5");
    const { res, ms } = await register({});
    assert.equal(res.status, 200, res.text);
    assert.ok(ms < 5_000, `took ${Math.round(ms)} ms`);
    assert.equal(res.body.devFaucet.funded, false);
    // Registration first puts the wallet on the allowlist (an operator transaction, gas paid),
    // so the operator holds a little less than the 0.5 given when the faucet is asked.
    assert.match(
      res.body.devFaucet.reason,
      /^Operator account cannot pay for the dev faucet: it holds 0\.(5|4\d+) COIN, needs 10\.\d+ COIN \(operator 0x[0-9a-fA-F]{40}\)$/,
    );
    assert.equal(await provider.getBalance(res.body.walletAddress), 0n);
    // The key works: the org exists.
    const wallet = await stack.api("GET", "/api/enterprise/wallet", { apiKey: res.body.apiKey });
    assert.equal(wallet.status, 200);
    assert.equal(wallet.body.balance, "0");
  });

  it("a role grant the operator cannot pay for answers 503 at once naming its balance, and stores nothing", async () => {
    await setOperatorBalance("0");
    const before = await orgCount();
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const { res, ms } = await register({ scopes: ["read", "admin:types"] });
      assert.equal(res.status, 503, res.text);
      assert.ok(ms < 5_000, `took ${Math.round(ms)} ms`);
      assert.match(
        res.body.error,
        /^Operator account cannot pay for the REGISTRAR_ROLE grant of an admin:types organization: it holds 0 COIN, needs 0\.\d+ COIN \(operator 0x[0-9a-fA-F]{40}\)$/,
      );
    }
    assert.equal(await orgCount(), before);
  });

  it("an asset type registered by operator staff answers 503 the same way", async () => {
    await setOperatorBalance("0");
    const res = await stack.api("POST", "/api/console/operator/asset-types", {
      adminToken: stack.adminToken,
      body: { typeName: `Drained${Date.now()}` },
    });
    assert.equal(res.status, 503, res.text);
    assert.match(res.body.error, /^Operator account cannot pay for registering the asset type/);
  });

  it("once funded again, registration and the faucet work as before", async () => {
    await setOperatorBalance("1000");
    const { res } = await register({ scopes: ["read", "admin:types"] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.devFaucet.funded, true);
    assert.equal(await provider.getBalance(res.body.walletAddress), parseEther(FAUCET));
  });
});
