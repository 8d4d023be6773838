import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { keccak256, parseEther, toUtf8Bytes } from "ethers";
import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStackWithOrgs, type WriteStack } from "./helpers.js";

/** Polls GET /api/v1/transactions/{id} (up to ~5 s) until it reports `confirmed`; returns the last answer. */
async function waitForConfirmed(org: TestOrg, transactionId: string) {
  let status = await org.api("GET", `/api/v1/transactions/${transactionId}`);
  for (let i = 0; i < 100 && status.body.status !== "confirmed"; i++) {
    await new Promise((r) => setTimeout(r, 50));
    status = await org.api("GET", `/api/v1/transactions/${transactionId}`);
  }
  return status;
}

describe("write endpoints (anvil automine + PostgreSQL)", () => {
  let stack: WriteStack, alice: TestOrg, bob: TestOrg;
  before(async () => ([stack, alice, bob] = await startWriteStackWithOrgs(2)));
  after(() => stack?.stop());

  // Straight JSON-RPC: ethers' provider caches identical reads for 250 ms.
  const balance = async (address: string) =>
    BigInt(await stack.rpc<string>("eth_getBalance", [address, "latest"]));

  const issue = async (org: TestOrg, overrides: Record<string, unknown> = {}) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody(overrides) });
    assert.equal(res.status, 200, res.text);
    return res.body as {
      tokenId: string;
      txHash: string;
      wallet: string;
      owner: string;
      ipfsHash: string;
    };
  };

  describe("issue-asset", () => {
    it("issue-asset mints to the org wallet and returns tokenId, txHash, wallet and owner", async () => {
      const body = await issue(alice, { password: "s3cret", stakedAmount: "0.25" });
      assert.match(body.tokenId, /^\d+$/);
      assert.match(body.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(body.wallet, alice.walletAddress);
      assert.equal(body.owner, alice.walletAddress);
      assert.equal(await stack.token.getFunction("ownerOf")(body.tokenId), alice.walletAddress);
      assert.equal(await stack.token.getFunction("stakeOf")(body.tokenId), parseEther("0.25"));
      assert.equal(
        await stack.token.getFunction("passwordHashOf")(body.tokenId),
        keccak256(toUtf8Bytes("s3cret")),
      );
    });

    it("issue-asset references the raw CIDv1 of the metadata document its own transaction row carries", async () => {
      const body = await issue(alice, {
        image: "ipfs://bafkqaaa",
        externalUrl: "https://example.com/a/1",
      });
      assert.equal(await stack.token.getFunction("cidStringOf")(body.tokenId), body.ipfsHash);
      const { rows } = await stack.database.pool.query<{ json: string }>(
        `SELECT context->>'metadataDocument' AS json FROM transactions WHERE receipt->>'hash' = $1`,
        [body.txHash],
      );
      const json = rows[0]?.json;
      assert.ok(json);
      const doc = JSON.parse(json);
      assert.deepEqual(doc.attributes, [{ trait_type: "Asset Type", value: "Bond" }]);
      assert.equal(doc.external_url, "https://example.com/a/1");
      // raw codec: what `ipfs add --cid-version 1` gives the same bytes
      const expected = CID.createV1(0x55, await sha256.digest(new TextEncoder().encode(json)));
      assert.equal(body.ipfsHash, expected.toString());
    });

    it("issue-asset accepts CIDv0 and CIDv1 ipfsHash values", async () => {
      const v0 = "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG";
      const v1 = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
      assert.equal((await issue(alice, { ipfsHash: v0 })).ipfsHash, v0);
      assert.equal((await issue(alice, { ipfsHash: v1 })).ipfsHash, v1);
    });

    const badRequests: Array<[string, Record<string, unknown>, string | RegExp]> = [
      ["a required field is missing", { name: undefined }, "Missing required field: name"],
      ["assetType is missing", { assetType: undefined }, "Missing required field: assetType"],
      ["stakedAmount is below 0.1", { stakedAmount: "0.05" }, "stakedAmount minimum is 0.1 COIN"],
      ["the asset type is not registered", { assetType: "bond" }, /asset type not registered/],
      ["ipfsHash is not a CID", { ipfsHash: "not-a-cid" }, /Invalid field: ipfsHash/],
      ["name is over 200 characters", { name: "x".repeat(201) }, /Invalid field: name/],
      ["image is not a URL", { image: "ftp://x/y.png" }, /Invalid field: image/],
      ["stakedAmount is not a decimal", { stakedAmount: "1e18" }, /Invalid field: stakedAmount/],
    ];
    for (const [condition, overrides, expected] of badRequests) {
      it(`issue-asset returns 400 when ${condition}`, async () => {
        const before = Number(
          await stack.rpc<string>("eth_getTransactionCount", [alice.walletAddress, "latest"]),
        );
        const res = await alice.api("POST", "/api/v1/write/issue-asset", {
          body: assetBody(overrides),
        });
        assert.equal(res.status, 400, res.text);
        if (typeof expected === "string") assert.equal(res.body.error, expected);
        else assert.match(res.body.error, expected);
        assert.equal(
          Number(
            await stack.rpc<string>("eth_getTransactionCount", [alice.walletAddress, "latest"]),
          ),
          before,
        );
      });
    }

    it("issue-asset returns 400 naming the shortfall when the wallet cannot pay stake and gas", async () => {
      const res = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ stakedAmount: "1000" }),
      });
      assert.equal(res.status, 400);
      assert.match(
        res.body.error,
        /^Insufficient funds: need 1000\.\d+ COIN, wallet has [\d.]+ COIN \(short [\d.]+\)$/,
      );
    });

    it("issue-asset returns 401 without a key and 403 without the write:issue scope", async () => {
      assert.equal(
        (await stack.api("POST", "/api/v1/write/issue-asset", { body: assetBody() })).status,
        401,
      );
      const reader = await stack.registerOrg({ scopes: ["read"] });
      const res = await reader.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
      assert.equal(res.status, 403);
      assert.equal(res.body.error, "Insufficient scope");
    });
  });

  describe("batch-issue", () => {
    it("batch-issue issues every asset and reports per-item results", async () => {
      const assets = Array.from({ length: 5 }, (_, i) => assetBody({ name: `Batch ${i}` }));
      const res = await alice.api("POST", "/api/v1/write/batch-issue", { body: { assets } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.issued, 5);
      assert.equal(res.body.failed, 0);
      assert.deepEqual(
        res.body.results.map((r: { index: number }) => r.index),
        [0, 1, 2, 3, 4],
      );
      const ids = new Set(res.body.results.map((r: { tokenId: string }) => r.tokenId));
      assert.equal(ids.size, 5);
      for (const r of res.body.results)
        assert.equal(await stack.token.getFunction("ownerOf")(r.tokenId), alice.walletAddress);
    });

    for (const [condition, body, message] of [
      ["assets is missing", {}, "assets must be a non-empty array"],
      ["assets is empty", { assets: [] }, "assets must be a non-empty array"],
      [
        "assets has 51 items",
        { assets: Array.from({ length: 51 }, () => assetBody()) },
        "assets must contain at most 50 items (got 51)",
      ],
    ] as const) {
      it(`batch-issue returns 400 when ${condition}`, async () => {
        const res = await alice.api("POST", "/api/v1/write/batch-issue", { body });
        assert.equal(res.status, 400);
        assert.equal(res.body.error, message);
      });
    }

    it("batch-issue returns 400 naming the item when one asset is invalid", async () => {
      const res = await alice.api("POST", "/api/v1/write/batch-issue", {
        body: { assets: [assetBody(), assetBody({ stakedAmount: "0.01" })] },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, "assets.1.stakedAmount minimum is 0.1 COIN");
    });
  });

  describe("transfer", () => {
    it("transfer moves a token to another org's wallet; the sender can no longer move it", async () => {
      const { tokenId } = await issue(alice);
      const res = await alice.api("POST", "/api/v1/write/transfer", {
        body: { tokenId: Number(tokenId), toAddress: bob.walletAddress },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(
        {
          from: res.body.from,
          to: res.body.to,
          tokenId: res.body.tokenId,
          success: res.body.success,
        },
        { from: alice.walletAddress, to: bob.walletAddress, tokenId, success: true },
      );
      assert.equal(await stack.token.getFunction("ownerOf")(tokenId), bob.walletAddress);
      const again = await alice.api("POST", "/api/v1/write/transfer", {
        body: { tokenId, toAddress: alice.walletAddress },
      });
      assert.equal(again.status, 400);
      assert.match(again.body.error, /not held by this organization's wallet/);
    });

    it("transfer returns 400 for a malformed address, a missing field and an unknown token", async () => {
      const { tokenId } = await issue(alice);
      const bad = await alice.api("POST", "/api/v1/write/transfer", {
        body: { tokenId, toAddress: "0x1234" },
      });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /Invalid field: toAddress/);
      const missing = await alice.api("POST", "/api/v1/write/transfer", { body: { tokenId } });
      assert.equal(missing.body.error, "Missing required field: toAddress");
      const unknown = await alice.api("POST", "/api/v1/write/transfer", {
        body: { tokenId: "999999", toAddress: bob.walletAddress },
      });
      assert.equal(unknown.status, 400);
      assert.match(unknown.body.error, /does not exist/);
    });

    it("transfer requires the write:transfer scope", async () => {
      const issuer = await stack.registerOrg({ scopes: ["read", "write:issue"] });
      const res = await issuer.api("POST", "/api/v1/write/transfer", {
        body: { tokenId: "1", toAddress: bob.walletAddress },
      });
      assert.equal(res.status, 403);
    });
  });

  describe("marketplace", () => {
    it("a sale between two orgs moves token and stake, pays the seller and refunds the buyer's excess", async () => {
      const { tokenId } = await issue(alice, { stakedAmount: "0.3" });
      const listed = await alice.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "1" },
      });
      assert.equal(listed.status, 200, listed.text);
      assert.match(listed.body.listingId, /^\d+$/);
      assert.equal(listed.body.priceInCOIN, "1");
      assert.equal(listed.body.durationDays, 30);
      const sellerBefore = await balance(alice.walletAddress);
      const buyerBefore = await balance(bob.walletAddress);

      const bought = await bob.api("POST", "/api/v1/write/marketplace/buy", {
        body: { listingId: listed.body.listingId, maxPriceInCOIN: "1.5" },
      });
      assert.equal(bought.status, 200, bought.text);
      assert.equal(bought.body.pricePaid, "1");
      assert.equal(bought.body.buyer, bob.walletAddress);
      assert.equal(bought.body.tokenId, tokenId);
      assert.equal(await stack.token.getFunction("ownerOf")(tokenId), bob.walletAddress);
      assert.equal(await stack.token.getFunction("stakeOf")(tokenId), parseEther("0.3"));
      assert.equal((await balance(alice.walletAddress)) - sellerBefore, parseEther("1"));
      const receipt = await stack.provider.getTransactionReceipt(bought.body.txHash);
      const gas = receipt!.gasUsed * receipt!.gasPrice;
      assert.equal(buyerBefore - (await balance(bob.walletAddress)), parseEther("1") + gas);
    });

    it("buy returns 500 Transaction failed: Price above max when maxPriceInCOIN is below the price", async () => {
      const { tokenId } = await issue(alice);
      const listed = await alice.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "2" },
      });
      const res = await bob.api("POST", "/api/v1/write/marketplace/buy", {
        body: { listingId: listed.body.listingId, maxPriceInCOIN: "1" },
      });
      assert.equal(res.status, 500);
      assert.equal(res.body.error, "Transaction failed: Price above max");
    });

    it("delist by a non-seller is refused and delist by the seller returns the token", async () => {
      const { tokenId } = await issue(alice);
      const listed = await alice.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "1", durationDays: 7 },
      });
      const refused = await bob.api("POST", "/api/v1/write/marketplace/delist", {
        body: { listingId: listed.body.listingId },
      });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /Only the seller/);
      const res = await alice.api("POST", "/api/v1/write/marketplace/delist", {
        body: { listingId: listed.body.listingId },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.listingId, listed.body.listingId);
      assert.equal(await stack.token.getFunction("ownerOf")(tokenId), alice.walletAddress);
      const buy = await bob.api("POST", "/api/v1/write/marketplace/buy", {
        body: { listingId: listed.body.listingId },
      });
      assert.equal(buy.status, 400);
      assert.equal(buy.body.error, "Listing not active");
    });

    it("buy returns 400 Seller cannot buy own listing when the seller's org buys it, and sends nothing", async () => {
      const { tokenId } = await issue(alice);
      const listed = await alice.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "1" },
      });
      assert.equal(listed.status, 200, listed.text);
      const nonceBefore = await stack.provider.getTransactionCount(alice.walletAddress);
      const res = await alice.api("POST", "/api/v1/write/marketplace/buy", {
        body: { listingId: listed.body.listingId, maxPriceInCOIN: "1" },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, { error: "Seller cannot buy own listing" });
      assert.equal(res.headers.get("x-transaction-id"), null, "no write was recorded");
      assert.equal(await stack.provider.getTransactionCount(alice.walletAddress), nonceBefore);
      // The listing is untouched: another org can still buy it.
      const bought = await bob.api("POST", "/api/v1/write/marketplace/buy", {
        body: { listingId: listed.body.listingId, maxPriceInCOIN: "1" },
      });
      assert.equal(bought.status, 200, bought.text);
      assert.equal(await stack.token.getFunction("ownerOf")(tokenId), bob.walletAddress);
    });

    it("list returns 400 for a token the wallet does not hold and for durationDays out of range", async () => {
      const { tokenId } = await issue(bob);
      const notHeld = await alice.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "1" },
      });
      assert.equal(notHeld.status, 400);
      const tooLong = await bob.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "1", durationDays: 366 },
      });
      assert.equal(tooLong.status, 400);
      assert.match(tooLong.body.error, /Invalid field: durationDays/);
    });

    it("buy returns 400 Listing not active after the listing expired", async () => {
      const { tokenId } = await issue(alice);
      const listed = await alice.api("POST", "/api/v1/write/marketplace/list", {
        body: { tokenId, priceInCOIN: "1", durationDays: 1 },
      });
      await stack.rpc("evm_increaseTime", [2 * 24 * 3600]);
      await stack.rpc("evm_mine", []);
      const res = await bob.api("POST", "/api/v1/write/marketplace/buy", {
        body: { listingId: listed.body.listingId },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, "Listing not active");
    });
  });

  describe("register-asset-type", () => {
    it("an org with admin:types registers a type any org can then issue", async () => {
      const admin = await stack.registerOrg({ scopes: ["read", "write:issue", "admin:types"] });
      const typeName = `Vintage Wine ${Date.now()}`;
      const res = await admin.api("POST", "/api/v1/write/register-asset-type", {
        body: { typeName },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.typeName, typeName);
      await issue(bob, { assetType: typeName });
      const again = await admin.api("POST", "/api/v1/write/register-asset-type", {
        body: { typeName },
      });
      assert.equal(again.status, 400);
    });

    it("register-asset-type requires the admin:types scope", async () => {
      const res = await alice.api("POST", "/api/v1/write/register-asset-type", {
        body: { typeName: "Nope" },
      });
      assert.equal(res.status, 403);
    });
  });

  describe("idempotency and async mode", () => {
    it("an Idempotency-Key is kept 24 h; once expired it may be reused and the purge deletes it", async () => {
      const headers = { "Idempotency-Key": `expiring-${Date.now()}` };
      const first = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "First use" }),
        headers,
      });
      assert.equal(first.status, 200, first.text);
      const { rows } = await stack.database.pool.query<{ hours: number }>(
        `SELECT extract(epoch FROM expires_at - created_at) / 3600 AS hours
           FROM idempotency_keys WHERE org_id = $1 AND key = $2`,
        [alice.orgId, headers["Idempotency-Key"]],
      );
      assert.ok(Number(rows[0]!.hours) >= 24, `kept ${rows[0]!.hours} h`);

      // A day later: the record has expired but the purge has not run yet.
      const expire = () =>
        stack.database.pool.query(
          "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE org_id = $1 AND key = $2",
          [alice.orgId, headers["Idempotency-Key"]],
        );
      await expire();
      const reused = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Second use, other body" }),
        headers,
      });
      assert.equal(reused.status, 200, reused.text);
      assert.notEqual(reused.body.tokenId, first.body.tokenId);
      // The record now stands for the second request.
      const again = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Second use, other body" }),
        headers,
      });
      assert.deepEqual(again.body, reused.body);

      await expire();
      const count = (org: string) =>
        stack.database.pool
          .query<{
            n: string;
          }>("SELECT count(*)::text AS n FROM idempotency_keys WHERE org_id = $1", [org])
          .then((r) => Number(r.rows[0]!.n));
      const before = await count(alice.orgId);
      assert.equal(await stack.ctx.engine.store.purgeExpiredIdempotencyKeys(), 1);
      assert.equal(await count(alice.orgId), before - 1);
    });

    it("the same Idempotency-Key and body returns the first result; another body gets 409", async () => {
      const headers = { "Idempotency-Key": `k-${Date.now()}` };
      const first = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Once" }),
        headers,
      });
      const second = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Once" }),
        headers,
      });
      assert.equal(first.status, 200);
      assert.deepEqual(second.body, first.body);
      const conflict = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Twice" }),
        headers,
      });
      assert.equal(conflict.status, 409);
      assert.deepEqual(conflict.body, {
        error: "Idempotency-Key reused with a different request body",
      });
      // Keys are per org: bob may use the same key.
      const other = await bob.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: "Twice" }),
        headers,
      });
      assert.equal(other.status, 200);
    });

    it("Prefer: respond-async answers 202 and the transaction can be read by its org only", async () => {
      const res = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      assert.match(res.body.transactionId, /^tx_[0-9a-f]{24}$/);
      assert.ok(["queued", "sent"].includes(res.body.status));
      const status = await waitForConfirmed(alice, res.body.transactionId);
      assert.equal(status.status, 200);
      assert.equal(status.body.status, "confirmed");
      assert.match(status.body.result.tokenId, /^\d+$/);
      assert.equal(status.body.hashes.length >= 1, true);
      assert.equal(status.body.receipt.status, 1);
      const foreign = await bob.api("GET", `/api/v1/transactions/${res.body.transactionId}`);
      assert.equal(foreign.status, 404);
    });

    it("GET /api/v1/transactions/{id} lists each broadcast attempt with its fees, without the signed bytes", async () => {
      const res = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const status = await waitForConfirmed(alice, res.body.transactionId);
      assert.equal(status.body.status, "confirmed");
      const { attempts, hashes, receipt, nonce } = status.body;
      assert.ok(Array.isArray(attempts) && attempts.length >= 1, status.text);
      assert.deepEqual(
        attempts.map((a: { hash: string }) => a.hash),
        hashes,
      );
      const mined = attempts.find((a: { hash: string }) => a.hash === receipt.hash);
      assert.ok(mined, "the mined hash is one of the attempts");
      assert.deepEqual(Object.keys(mined).sort(), [
        "hash",
        "maxFeePerGas",
        "maxPriorityFeePerGas",
        "nonce",
        "outOfGas",
        "refused",
        "reorgedFrom",
        "sentAt",
        "superseded",
        "type",
      ]);
      assert.equal(mined.nonce, nonce);
      // The stack runs with the default CONFIRMATIONS (0): confirmed at once, its block counted.
      assert.equal(status.body.confirmations.required, 0);
      assert.ok(status.body.confirmations.blocksAbove >= 0, status.text);
      assert.ok([0, 2].includes(mined.type), `type ${mined.type}`);
      assert.match(mined.maxFeePerGas, /^[1-9]\d*$/);
      assert.match(mined.maxPriorityFeePerGas, /^\d+$/);
      assert.ok(BigInt(mined.maxFeePerGas) >= BigInt(mined.maxPriorityFeePerGas));
      assert.ok(!Number.isNaN(Date.parse(mined.sentAt)));
      assert.equal(mined.refused, null);
      assert.equal(mined.superseded, null);
      assert.equal(mined.outOfGas, false);
      assert.equal(mined.reorgedFrom, null);
      assert.ok(!status.text.includes('"raw"'), "the signed bytes are not in the body");
      assert.ok(!Number.isNaN(Date.parse(status.body.minedAt)), "minedAt is set once mined");
      const foreign = await bob.api("GET", `/api/v1/transactions/${res.body.transactionId}`);
      assert.equal(foreign.status, 404);
    });

    it("GET /api/v1/transactions/{id} answers 500 Internal error, logged with its request id, when the stored result does not parse", async () => {
      const res = await alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody(),
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202, res.text);
      const { transactionId } = res.body as { transactionId: string };
      assert.equal((await waitForConfirmed(alice, transactionId)).body.status, "confirmed");
      // A bug's footprint: a confirmed row whose result no longer matches its kind's schema.
      const { rows } = await stack.database.pool.query<{ result: unknown }>(
        "SELECT result FROM transactions WHERE id = $1",
        [transactionId],
      );
      const stored = rows[0]?.result;
      assert.ok(stored !== undefined && stored !== null);
      await stack.database.pool.query(
        `UPDATE transactions SET result = '{"tokenId": 7}'::jsonb WHERE id = $1`,
        [transactionId],
      );
      try {
        const broken = await alice.api("GET", `/api/v1/transactions/${transactionId}`);
        assert.equal(broken.status, 500, broken.text);
        assert.deepEqual(broken.body, { error: "Internal error" });
        const requestId = broken.headers.get("x-request-id");
        assert.ok(requestId !== null && requestId.length > 0, "the answer names its request");
        // The error handler logs before it answers (the access line may come after the answer).
        const logged = stack.logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((entry) => entry.requestId === requestId && entry.msg === "unhandled error");
        assert.equal(logged.length, 1, stack.logText());
        const [entry] = logged as Array<{ method: string; path: string; err: { message: string } }>;
        assert.equal(entry!.method, "GET");
        assert.equal(entry!.path, `/api/v1/transactions/${transactionId}`);
        assert.match(
          entry!.err.message,
          new RegExp(`^Stored result of issue-asset row ${transactionId} does not parse`),
        );
      } finally {
        await stack.database.pool.query("UPDATE transactions SET result = $2 WHERE id = $1", [
          transactionId,
          JSON.stringify(stored),
        ]);
      }
      const repaired = await alice.api("GET", `/api/v1/transactions/${transactionId}`);
      assert.equal(repaired.status, 200, repaired.text);
    });

    it("a batch in async mode reports per-item results at GET /api/v1/transactions/{id}", async () => {
      const res = await alice.api("POST", "/api/v1/write/batch-issue", {
        body: { assets: [assetBody(), assetBody()] },
        headers: { Prefer: "respond-async" },
      });
      assert.equal(res.status, 202);
      const status = await waitForConfirmed(alice, res.body.transactionId);
      assert.equal(status.body.result.issued, 2);
    });
  });
});
