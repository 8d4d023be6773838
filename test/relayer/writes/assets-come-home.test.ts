import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther, parseUnits, type Wallet } from "ethers";
import { AssetToken__factory } from "../../../typechain-types/factories/AssetToken__factory.js";
import { Marketplace__factory } from "../../../typechain-types/factories/Marketplace__factory.js";
import type { TestOrg } from "../../support/stack.js";
import { orgSigner } from "../webhooks/chain-helpers.js";
import { assetBody, startWriteStackWithOrgs, type WriteStack } from "./helpers.js";
import { assertError } from "../../support/assert-error.js";
import { ApiError, RwaClient } from "../../../relayer/sdk/index.js";

/**
 * Every asset can come home: delist of an expired listing reclaims the token, redeem burns a
 * token and returns its stake, an operator rescues a token moved into the marketplace without a
 * listing, and a listing lost to a race answers 400 `Listing not active`. Real anvil (automine,
 * time travel with `evm_increaseTime`) and PostgreSQL. A synchronous write answers once the
 * indexer (started by the write stack) has applied its block, so the read model and the webhook
 * outbox already show it.
 */

const DAY = 24 * 3600;

describe("assets come home (anvil + PostgreSQL)", () => {
  let stack: WriteStack, alice: TestOrg, bob: TestOrg;
  before(async () => ([stack, alice, bob] = await startWriteStackWithOrgs(2)));
  after(() => stack?.stop());

  const rpc = <T>(method: string, params: unknown[] = []) => stack.rpc<T>(method, params);
  const balance = async (address: string) =>
    BigInt(await rpc<string>("eth_getBalance", [address, "latest"]));
  const ownerOf = async (tokenId: string) => {
    try {
      return await stack.token.ownerOf(tokenId);
    } catch {
      return undefined;
    }
  };
  /** Polls `probe` (up to ~10 s) until it returns true: the indexer follows the chain. */
  const eventually = async (probe: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await probe()); i++) await new Promise((r) => setTimeout(r, 50));
  };
  const timeTravel = async (seconds: number) => {
    await rpc("evm_increaseTime", [seconds]);
    await rpc("evm_mine");
  };
  const issue = async (org: TestOrg, overrides: Record<string, unknown> = {}) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody(overrides) });
    assert.equal(res.status, 200, res.text);
    return res.body as { tokenId: string; txHash: string };
  };
  const list = async (org: TestOrg, tokenId: string, durationDays = 30) => {
    const res = await org.api("POST", "/api/v1/write/marketplace/list", {
      body: { tokenId, priceInCOIN: "1", durationDays },
    });
    assert.equal(res.status, 200, res.text);
    return res.body as { listingId: string };
  };
  /**
   * POSTs the write `kind` as `org` and expects 200 with `success: true` and exactly the other
   * `fields` in the body; returns the answer.
   */
  const succeeds = async (
    org: TestOrg,
    kind: string,
    body: Record<string, unknown>,
    fields: string[],
  ) => {
    const res = await org.api("POST", `/api/v1/write/${kind}`, { body });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), [...fields, "success"].sort());
    assert.equal(res.body.success, true);
    return res;
  };
  const outbox = async (orgId: string, kind: string, txHash: string) =>
    (
      await stack.database.pool.query<{ payload: { data: Record<string, unknown> } }>(
        `SELECT payload FROM webhook_events WHERE org_id = $1 AND kind = $2 AND tx_hash = $3`,
        [orgId, kind, txHash],
      )
    ).rows.map((r) => r.payload.data);

  describe("delist of an expired listing", () => {
    it("delist on an expired listing of the caller reclaims the token and answers as a delist does, reason expired", async () => {
      const { tokenId } = await issue(alice);
      const { listingId } = await list(alice, tokenId, 1);
      await timeTravel(2 * DAY);

      const stranger = await bob.api("POST", "/api/v1/write/marketplace/delist", {
        body: { listingId },
      });
      assertError(stranger, 400, "Listing not active");
      assert.equal(await ownerOf(tokenId), stack.ctx.contracts.marketplace);

      const res = await succeeds(alice, "marketplace/delist", { listingId }, [
        "listingId",
        "reason",
        "tokenId",
        "txHash",
      ]);
      assert.equal(res.body.listingId, listingId);
      assert.equal(res.body.tokenId, tokenId);
      assert.equal(res.body.reason, "expired");
      assert.equal(await ownerOf(tokenId), alice.walletAddress);

      assert.deepEqual(await outbox(alice.orgId, "asset.delisted", res.body.txHash), [
        {
          tokenId,
          from: stack.ctx.contracts.marketplace,
          to: alice.walletAddress,
          listingId,
          seller: alice.walletAddress,
          reason: "expired",
        },
      ]);
      const listing = await alice.api("GET", `/api/v1/marketplace/${listingId}`);
      assert.equal(listing.body.state, "expired");

      const again = await alice.api("POST", "/api/v1/write/marketplace/delist", {
        body: { listingId },
      });
      assertError(again, 400, "Listing not active");
    });

    it("delist of an active listing answers reason cancelled and its webhook says cancelled", async () => {
      const { tokenId } = await issue(alice);
      const { listingId } = await list(alice, tokenId);
      const res = await alice.api("POST", "/api/v1/write/marketplace/delist", {
        body: { listingId },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.reason, "cancelled");
      const [event] = await outbox(alice.orgId, "asset.delisted", res.body.txHash);
      assert.equal(event?.reason, "cancelled");
    });
  });

  describe("redeem-asset", () => {
    it("redeem-asset burns the caller's token, pays its stake back to the wallet and keeps the record as redeemed", async () => {
      const { tokenId } = await issue(alice, { stakedAmount: "0.3" });
      const before = await balance(alice.walletAddress);
      const res = await succeeds(alice, "redeem-asset", { tokenId }, [
        "stakeReturned",
        "tokenId",
        "txHash",
      ]);
      assert.equal(res.body.tokenId, tokenId);
      assert.equal(res.body.stakeReturned, "0.3");
      assert.match(res.body.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await ownerOf(tokenId), undefined);
      const receipt = await stack.provider.getTransactionReceipt(res.body.txHash);
      const gas = receipt!.gasUsed * receipt!.gasPrice;
      assert.equal((await balance(alice.walletAddress)) - before, parseEther("0.3") - gas);

      const read = await alice.api("GET", `/api/v1/assets/${tokenId}`);
      assert.equal(read.status, 200, read.text);
      assert.equal(read.body.redeemed, true);
      assert.deepEqual(await outbox(alice.orgId, "asset.redeemed", res.body.txHash), [
        {
          tokenId,
          from: alice.walletAddress,
          to: "0x0000000000000000000000000000000000000000",
          owner: alice.walletAddress,
          stakeReturned: "0.3",
          stakeReturnedWei: parseEther("0.3").toString(),
        },
      ]);
      assert.deepEqual(await outbox(alice.orgId, "asset.transferred", res.body.txHash), []);
    });

    it("redeem-asset of a password-protected token needs its password: 400 Invalid password otherwise, and nothing changes", async () => {
      const { tokenId } = await issue(alice, { password: "s3cret" });
      for (const body of [{ tokenId }, { tokenId, password: "wrong" }, { tokenId, password: "" }]) {
        const res = await alice.api("POST", "/api/v1/write/redeem-asset", { body });
        assertError(res, 400, "Invalid password", JSON.stringify(body));
      }
      assert.equal(await ownerOf(tokenId), alice.walletAddress);
      const res = await alice.api("POST", "/api/v1/write/redeem-asset", {
        body: { tokenId: Number(tokenId), password: "s3cret" },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(await ownerOf(tokenId), undefined);
    });

    it("redeem-asset answers 404 Asset not found for another org's, a redeemed and an unknown token, sending nothing", async () => {
      const { tokenId: bobs } = await issue(bob);
      const { tokenId: gone } = await issue(alice);
      assert.equal(
        (await alice.api("POST", "/api/v1/write/redeem-asset", { body: { tokenId: gone } })).status,
        200,
      );
      const nonce = Number(
        await stack.rpc<string>("eth_getTransactionCount", [alice.walletAddress, "latest"]),
      );
      for (const tokenId of [bobs, gone, "999999999"]) {
        const res = await alice.api("POST", "/api/v1/write/redeem-asset", { body: { tokenId } });
        assertError(res, 404, "Asset not found", tokenId);
      }
      assert.equal(await ownerOf(bobs), bob.walletAddress);
      assert.equal(
        Number(await stack.rpc<string>("eth_getTransactionCount", [alice.walletAddress, "latest"])),
        nonce,
      );
    });

    it("redeem-asset of the caller's listed token answers 400 naming the listing, and bad input the exact strings", async () => {
      const { tokenId } = await issue(alice);
      const { listingId } = await list(alice, tokenId);
      const listed = await alice.api("POST", "/api/v1/write/redeem-asset", { body: { tokenId } });
      assert.equal(listed.status, 400);
      assert.deepEqual(listed.body, {
        error: `Asset is listed on the marketplace (listing ${listingId}): delist it first`,
      });
      assert.equal(await ownerOf(tokenId), stack.ctx.contracts.marketplace);
      // Bob sees alice's listed token as any other token of another org.
      const foreign = await bob.api("POST", "/api/v1/write/redeem-asset", { body: { tokenId } });
      assert.equal(foreign.status, 404);

      const cases: [unknown, string][] = [
        [{ tokenId: true }, "Invalid field: tokenId (Invalid input)"],
        [{ tokenId: "-1" }, "Invalid field: tokenId (must be a non-negative integer)"],
        [{ tokenId: "1", extra: 1 }, "Unknown field: extra"],
      ];
      for (const [body, error] of cases) {
        const res = await alice.api("POST", "/api/v1/write/redeem-asset", { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error, error, JSON.stringify(body));
      }
    });

    it("redeem-asset needs write:issue (write:all includes it)", async () => {
      const reader = await stack.registerOrg({ scopes: ["read", "write:marketplace"] });
      const denied = await reader.api("POST", "/api/v1/write/redeem-asset", {
        body: { tokenId: "1" },
      });
      assert.equal(denied.status, 403);
      const all = await stack.registerOrg({ scopes: ["read", "write:all"] });
      const { tokenId } = await issue(all);
      const res = await all.api("POST", "/api/v1/write/redeem-asset", { body: { tokenId } });
      assert.equal(res.status, 200, res.text);
    });
  });

  describe("operator rescue", () => {
    let aliceWallet: Wallet;
    before(async () => {
      aliceWallet = await orgSigner(stack, alice.orgId, stack.provider);
    });
    const rescue = (body: unknown, adminToken = stack.adminToken) =>
      stack.api("POST", "/api/enterprise/marketplace/rescue", { body, adminToken });
    /** A token of alice moved into the marketplace by a plain transferFrom (no listing). */
    const strand = async () => {
      const { tokenId } = await issue(alice);
      const direct = AssetToken__factory.connect(stack.ctx.contracts.assetToken, aliceWallet);
      await (
        await direct.getFunction("transferFrom")(
          alice.walletAddress,
          stack.ctx.contracts.marketplace,
          tokenId,
        )
      ).wait();
      assert.equal(await ownerOf(tokenId), stack.ctx.contracts.marketplace);
      return tokenId;
    };

    it("rescue returns a token sent to the marketplace by plain transferFrom to the address the operator names", async () => {
      const tokenId = await strand();
      const res = await rescue({ tokenId, toAddress: alice.walletAddress.toLowerCase() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.success, true);
      assert.equal(res.body.tokenId, tokenId);
      assert.equal(res.body.toAddress, alice.walletAddress);
      assert.match(res.body.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await ownerOf(tokenId), alice.walletAddress);
      const owner = async () =>
        (await alice.api("GET", `/api/v1/assets/${tokenId}`)).body.owner as string;
      await eventually(async () => (await owner()) === alice.walletAddress);
      assert.equal(await owner(), alice.walletAddress);
    });

    it("rescue refuses a token backing an active or expired, unreclaimed listing, and moves nothing", async () => {
      const { tokenId } = await issue(alice);
      const { listingId } = await list(alice, tokenId, 1);
      const active = await rescue({ tokenId, toAddress: bob.walletAddress });
      assert.equal(active.status, 400);
      assert.deepEqual(active.body, {
        error: `Token backs an active listing (listing ${listingId})`,
      });
      await timeTravel(2 * DAY);
      const expired = await rescue({ tokenId, toAddress: bob.walletAddress });
      assert.equal(expired.status, 400);
      assert.deepEqual(expired.body, {
        error: `Token backs an active listing (listing ${listingId})`,
      });
      assert.equal(await ownerOf(tokenId), stack.ctx.contracts.marketplace);
    });

    it("rescue answers the exact errors for bad input, a token the marketplace does not hold and an unknown token", async () => {
      const { tokenId } = await issue(alice);
      const cases: [unknown, number, string][] = [
        [{ tokenId, toAddress: bob.walletAddress }, 400, "Token is not held by the marketplace"],
        [{ tokenId: "999999999", toAddress: bob.walletAddress }, 404, "Asset not found"],
        [{ tokenId, toAddress: "0x1234" }, 400, "Invalid field: toAddress (not a 0x address)"],
        [
          { tokenId, toAddress: stack.ctx.contracts.marketplace },
          400,
          "Invalid field: toAddress (must not be the marketplace)",
        ],
        [{ tokenId }, 400, "Missing required field: toAddress"],
      ];
      for (const [body, status, error] of cases) {
        const res = await rescue(body);
        assert.equal(res.status, status, JSON.stringify(body));
        assert.deepEqual(res.body, { error }, JSON.stringify(body));
      }
      assert.equal(await ownerOf(tokenId), alice.walletAddress);
    });

    it("rescue needs the admin token: an org's API key gets 403 and the token stays put", async () => {
      const tokenId = await strand();
      const res = await stack.api("POST", "/api/enterprise/marketplace/rescue", {
        body: { tokenId, toAddress: alice.walletAddress },
        apiKey: alice.apiKey,
      });
      assertError(res, 403, "Admin token required");
      assert.equal(await ownerOf(tokenId), stack.ctx.contracts.marketplace);
    });
  });

  describe("a listing lost between the check and the mining", () => {
    const waitForPending = async (count: number) => {
      for (let i = 0; i < 200; i++) {
        const status = await rpc<{ pending: string }>("txpool_status");
        if (Number(BigInt(status.pending)) >= count) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`txpool never held ${count} transactions`);
    };
    /** Alice lists a fresh token; a third org's wallet, outside the relayer, is the rival buyer. */
    const contested = async () => {
      const { tokenId } = await issue(alice);
      const { listingId } = await list(alice, tokenId);
      const carol = await stack.registerOrg();
      const rival = await orgSigner(stack, carol.orgId, stack.provider);
      const market = Marketplace__factory.connect(stack.ctx.contracts.marketplace, rival);
      /** The rival's buy, with a far higher tip than the relayer pays (first in any block). */
      const rivalBuys = () =>
        market.getFunction("buy")(listingId, parseEther("1"), {
          value: parseEther("1"),
          gasLimit: 300_000n,
          maxPriorityFeePerGas: parseUnits("1000", "gwei"),
          maxFeePerGas: parseUnits("2000", "gwei"),
        });
      return { tokenId, listingId, rival, rivalBuys };
    };
    /**
     * The loser's failure on the other two paths: `GET /api/v1/transactions/{id}` (`error`,
     * `errorStatus`) and the SDK's `waitForTransaction` (the `ApiError` it throws).
     */
    const failureElsewhere = async (org: TestOrg, answer: { headers: Headers }) => {
      const id = answer.headers.get("x-transaction-id");
      assert.ok(id !== null, "the answer names its transaction");
      const status = await org.api("GET", `/api/v1/transactions/${id}`);
      assert.equal(status.status, 200, status.text);
      assert.equal(status.body.status, "failed");
      const client = new RwaClient({ apiKey: org.apiKey, baseUrl: stack.baseUrl });
      const thrown = await client.waitForTransaction(id, { intervalMs: 50 }).then(
        () => assert.fail("waitForTransaction resolved for a failed write"),
        (error: unknown) => error,
      );
      assert.ok(thrown instanceof ApiError, String(thrown));
      return {
        status: { status: status.body.errorStatus, error: status.body.error },
        sdk: { status: thrown.status, error: thrown.error },
      };
    };

    it("buy of a listing another buyer took in an earlier block answers 400 Listing not active, and so do its transaction and the SDK", async () => {
      const { tokenId, listingId, rival, rivalBuys } = await contested();
      const res = await stack.withoutAutomine(async () => {
        // Bob's buy passes every check and is broadcast. It is taken out of the pool while the
        // rival's buy is mined in a block of its own, then put back and mined in the next block,
        // where it reverts: the replay on its parent block names the reason.
        const pending = bob.api("POST", "/api/v1/write/marketplace/buy", { body: { listingId } });
        await waitForPending(1);
        const pool = await rpc<{ pending: Record<string, Record<string, { hash: string }>> }>(
          "txpool_content",
        );
        const [bobsTx] = Object.entries(pool.pending)
          .filter(([from]) => from.toLowerCase() === bob.walletAddress.toLowerCase())
          .flatMap(([, byNonce]) => Object.values(byNonce));
        assert.ok(bobsTx !== undefined, "Bob's buy is in the pool");
        const raw = await rpc<string>("eth_getRawTransactionByHash", [bobsTx.hash]);
        await rpc("anvil_dropTransaction", [bobsTx.hash]);
        await rivalBuys();
        await waitForPending(1);
        await rpc("evm_mine");
        await rpc("eth_sendRawTransaction", [raw]);
        await waitForPending(1);
        await rpc("evm_mine");
        return pending;
      });
      assertError(res, 400, "Listing not active");
      const elsewhere = await failureElsewhere(bob, res);
      assert.deepEqual(elsewhere.status, { status: 400, error: "Listing not active" });
      assert.deepEqual(elsewhere.sdk, { status: 400, error: "Listing not active" });
      assert.equal(await ownerOf(tokenId), rival.address);
    });

    it("buy of a listing another buyer takes in the same block answers the same on the synchronous call, its transaction and the SDK", async (t) => {
      const { tokenId, listingId, rival, rivalBuys } = await contested();
      const res = await stack.withoutAutomine(async () => {
        // Bob's buy passes every check and is broadcast; then the rival takes the listing in the
        // same block, ahead of it. Replayed on its parent block, Bob's buy would still pass.
        const pending = bob.api("POST", "/api/v1/write/marketplace/buy", { body: { listingId } });
        await waitForPending(1);
        await rivalBuys();
        await waitForPending(2);
        await rpc("evm_mine");
        return pending;
      });
      const answered = { status: res.status, error: (res.body as { error?: unknown }).error };
      const elsewhere = await failureElsewhere(bob, res);
      assert.deepEqual(elsewhere.status, answered, "GET /api/v1/transactions/{id}");
      assert.deepEqual(elsewhere.sdk, answered, "the SDK's waitForTransaction");
      assert.equal(await ownerOf(tokenId), rival.address);
      await t.test("and the words are 400 Listing not active, not 500", () =>
        assertError(res, 400, "Listing not active"),
      );
    });
  });
});
