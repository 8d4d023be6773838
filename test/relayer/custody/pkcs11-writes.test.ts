import assert from "node:assert/strict";
import { readdirSync, renameSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { parseEther } from "ethers";
import type { Pkcs11Settings } from "../../../relayer/src/context.js";
import { registerOrganization } from "../../../relayer/src/orgs/registration.js";
import { SYSTEM_ORIGIN } from "../../../relayer/src/audit/audit-writer.js";
import type { Pkcs11Signer } from "../../../relayer/src/wallets/pkcs11-signer.js";
import { SignerRouter } from "../../../relayer/src/wallets/signer-router.js";
import { startSoftHsm, type SoftHsm } from "../../support/softhsm.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, waitForStatus, type WriteStack } from "../writes/helpers.js";

/**
 * The whole write path with SIGNER=pkcs11: organizations registered through the API get their
 * key made in a real SoftHSM2 token, and every write they make is signed there. An organization
 * registered before (a local key) keeps its backend beside them.
 */
describe("writes from PKCS#11 wallets through the API (SoftHSM2, anvil, PostgreSQL)", () => {
  let hsm: SoftHsm;
  let settings: Pkcs11Settings;
  let stack: WriteStack;
  let tokenOrg: TestOrg;
  let localOrg: TestOrg;

  before(async () => {
    hsm = startSoftHsm();
    settings = hsm.initToken("rwa-writes");
    stack = await startWriteStack({
      config: { signer: { newWallets: "pkcs11", pkcs11: settings } },
    });
    tokenOrg = await stack.registerOrg({ orgName: "Token Org" });
    // As if registered before the switch to SIGNER=pkcs11: same process, the local backend.
    const local = new SignerRouter([stack.ctx.signers.backend("local")!], "local");
    const registered = await registerOrganization(
      { ...stack.ctx, signers: local },
      { orgName: "Local Org", walletMode: "custodial", plan: "enterprise" },
      SYSTEM_ORIGIN,
    );
    localOrg = {
      ...registered,
      api: (method, urlPath, options = {}) =>
        stack.api(method, urlPath, { apiKey: registered.apiKey, ...options }),
    };
  });
  after(async () => {
    await stack?.stop();
    hsm?.remove();
  });

  const walletRow = async (address: string) =>
    (
      await stack.database.pool.query<{ signer_backend: string; encrypted_key: string }>(
        `SELECT signer_backend, encrypted_key FROM wallets WHERE address = $1`,
        [address],
      )
    ).rows[0];
  const ownerOf = (tokenId: string) => stack.token.getFunction("ownerOf")(tokenId);
  const balance = async (address: string) =>
    BigInt(await stack.rpc<string>("eth_getBalance", [address, "latest"]));
  const senderOf = async (txHash: string) => (await stack.provider.getTransaction(txHash))?.from;
  const issue = async (org: TestOrg, name = "HSM Bond") => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody({ name }) });
    assert.equal(res.status, 200, res.text);
    return res.body as { tokenId: string; txHash: string };
  };

  test("register-organization with SIGNER=pkcs11 makes the key in the token and stores only its PKCS#11 URI", async () => {
    const row = await walletRow(tokenOrg.walletAddress);
    assert.equal(row?.signer_backend, "pkcs11");
    assert.match(
      row?.encrypted_key ?? "",
      /^pkcs11:token=rwa-writes;object=wal_[0-9a-f]+;type=private$/,
    );
  });

  test("an organization registered with the local backend keeps it when SIGNER=pkcs11", async () => {
    const row = await walletRow(localOrg.walletAddress);
    assert.equal(row?.signer_backend, "local");
    assert.match(row?.encrypted_key ?? "", /^v1:/);
    const { tokenId, txHash } = await issue(localOrg, "Local Bond");
    assert.equal(await ownerOf(tokenId), localOrg.walletAddress);
    assert.equal(await senderOf(txHash), localOrg.walletAddress);
  });

  test("issue-asset, transfer, list and buy from the PKCS#11 wallet are signed by its token key", async () => {
    const issued = await issue(tokenOrg);
    assert.equal(await ownerOf(issued.tokenId), tokenOrg.walletAddress);
    assert.equal(await senderOf(issued.txHash), tokenOrg.walletAddress);

    const transferred = await tokenOrg.api("POST", "/api/v1/write/transfer", {
      body: { tokenId: issued.tokenId, toAddress: localOrg.walletAddress },
    });
    assert.equal(transferred.status, 200, transferred.text);
    assert.equal(await ownerOf(issued.tokenId), localOrg.walletAddress);
    assert.equal(await senderOf(transferred.body.txHash), tokenOrg.walletAddress);

    // The token's wallet sells to the local one...
    const forSale = await issue(tokenOrg, "HSM Bond for sale");
    const listed = await tokenOrg.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId: forSale.tokenId, priceInCOIN: "1" },
    });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(await senderOf(listed.body.txHash), tokenOrg.walletAddress);
    const sellerBefore = await balance(tokenOrg.walletAddress);
    const bought = await localOrg.api("POST", "/api/v1/write/marketplace/buy", {
      body: { listingId: listed.body.listingId, maxPriceInCOIN: "1" },
    });
    assert.equal(bought.status, 200, bought.text);
    assert.equal(await ownerOf(forSale.tokenId), localOrg.walletAddress);
    assert.equal((await balance(tokenOrg.walletAddress)) - sellerBefore, parseEther("1"));

    // ...and buys from it.
    const theirs = await issue(localOrg, "Local Bond for sale");
    const theirListing = await localOrg.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId: theirs.tokenId, priceInCOIN: "0.5" },
    });
    assert.equal(theirListing.status, 200, theirListing.text);
    const purchase = await tokenOrg.api("POST", "/api/v1/write/marketplace/buy", {
      body: { listingId: theirListing.body.listingId, maxPriceInCOIN: "0.5" },
    });
    assert.equal(purchase.status, 200, purchase.text);
    assert.equal(await ownerOf(theirs.tokenId), tokenOrg.walletAddress);
    assert.equal(await senderOf(purchase.body.txHash), tokenOrg.walletAddress);

    const assets = await tokenOrg.api("GET", `/api/v1/assets?owner=${tokenOrg.walletAddress}`);
    assert.equal(assets.status, 200, assets.text);
  });

  test("while the token is away writes answer 503 naming the HSM, a queued write waits, and it is sent once the token is back", async () => {
    const [tokenFolder] = readdirSync(hsm.tokenDir);
    const inPlace = path.join(hsm.tokenDir, tokenFolder!);
    const away = path.join(path.dirname(hsm.tokenDir), tokenFolder!);
    renameSync(inPlace, away);
    let restored = false;
    try {
      // Accepted before anything noticed: the engine's signing fails and it keeps the row.
      const queued = await tokenOrg.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Queued while away" }),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(queued.status, 202, queued.text);
      const id = queued.body.transactionId as string;
      const token = (stack.ctx.signers.backend("pkcs11") as Pkcs11Signer).token;
      for (let i = 0; i < 100 && token.available; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(token.available, false, "the engine's signing attempt found the token gone");
      await new Promise((r) => setTimeout(r, 1_500)); // a retry or two of the engine
      const waiting = await tokenOrg.api("GET", `/api/v1/transactions/${id}`);
      assert.equal(waiting.body.status, "queued", JSON.stringify(waiting.body));
      assert.match(waiting.body.lastError, /^HSM unavailable: PKCS#11 token "rwa-writes"/);

      const refused = await tokenOrg.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Refused while away" }),
      });
      assert.equal(refused.status, 503, refused.text);
      assert.match(refused.body.error, /^HSM unavailable: PKCS#11 token "rwa-writes"/);
      assert.equal(refused.headers.get("retry-after"), "5");

      const registration = await stack.api("POST", "/api/enterprise/register", {
        adminToken: stack.adminToken,
        body: { orgName: "Registered while away", plan: "enterprise" },
      });
      assert.equal(registration.status, 503, registration.text);
      assert.match(registration.body.error, /^HSM unavailable/);

      // The local wallet does not depend on the token.
      await issue(localOrg, "Local while away");

      renameSync(away, inPlace);
      restored = true;
      const done = await waitForStatus(tokenOrg, id, (body) => body.status === "confirmed", 20_000);
      assert.equal(done.status, "confirmed");
      await issue(tokenOrg, "After the token came back");
    } finally {
      if (!restored) renameSync(away, inPlace);
    }
  });
});
