import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseEther, toBeHex } from "ethers";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStackWithOrgs, type WriteStack } from "./helpers.js";

// A synchronous write answers only once the indexer has applied its block: every read made right
// after the answer shows the write's effect, with no retry (docs/transactions.md).

describe("read your writes (anvil automine + PostgreSQL, indexer running)", () => {
  let stack: WriteStack, seller: TestOrg, buyer: TestOrg;
  before(async () => {
    [stack, seller, buyer] = await startWriteStackWithOrgs(2);
    await stack.rpc("anvil_setBalance", [buyer.walletAddress, toBeHex(parseEther("1000"))]);
  });
  after(() => stack?.stop());

  const write = async (org: TestOrg, path: string, body: Record<string, unknown>) => {
    const res = await org.api("POST", `/api/v1/write/${path}`, { body });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body as Record<string, string>;
  };
  const read = async (path: string) => {
    const res = await seller.api("GET", path);
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    return res.body as Record<string, unknown>;
  };

  it("20 rounds of issue, list, delist, list again and buy: each effect is readable at once", async () => {
    for (let round = 0; round < 20; round++) {
      const issued = await write(seller, "issue-asset", assetBody({ name: `RYW ${round}` }));
      const asset = await read(`/api/v1/assets/${issued.tokenId}`);
      assert.equal(asset.owner, seller.walletAddress, `round ${round}: issued asset's owner`);

      const listed = await write(seller, "marketplace/list", {
        tokenId: issued.tokenId,
        priceInCOIN: "0.5",
      });
      const active = await read(`/api/v1/marketplace/${listed.listingId}`);
      assert.equal(active.state, "active", `round ${round}: listing after list`);
      const page = (await read(`/api/v1/marketplace?limit=5`)) as {
        data: Array<{ listingId: string }>;
      };
      assert.ok(
        page.data.some((l) => l.listingId === listed.listingId),
        `round ${round}: new listing in the marketplace list`,
      );

      await write(seller, "marketplace/delist", { listingId: listed.listingId });
      const cancelled = await read(`/api/v1/marketplace/${listed.listingId}`);
      assert.equal(cancelled.state, "cancelled", `round ${round}: listing after delist`);
      assert.equal((await read(`/api/v1/assets/${issued.tokenId}`)).owner, seller.walletAddress);

      const relisted = await write(seller, "marketplace/list", {
        tokenId: issued.tokenId,
        priceInCOIN: "0.5",
      });
      await write(buyer, "marketplace/buy", { listingId: relisted.listingId });
      const sold = await read(`/api/v1/marketplace/${relisted.listingId}`);
      assert.equal(sold.state, "sold", `round ${round}: listing after buy`);
      const bought = await read(`/api/v1/assets/${issued.tokenId}`);
      assert.equal(bought.owner, buyer.walletAddress, `round ${round}: owner after buy`);
    }
  });

  it("GET /api/v1/transactions/{id} says confirmed only once the reads show the write", async () => {
    const res = await seller.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "Async RYW" }),
      headers: { Prefer: "respond-async" },
    });
    assert.equal(res.status, 202, res.text);
    const id = res.body.transactionId as string;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const status = await seller.api("GET", `/api/v1/transactions/${id}`);
      if (status.body.status === "confirmed") {
        const tokenId = (status.body.result as { tokenId: string }).tokenId;
        const asset = await seller.api("GET", `/api/v1/assets/${tokenId}`);
        assert.equal(asset.status, 200, asset.text);
        break;
      }
      assert.ok(Date.now() < deadline, `not confirmed: ${status.text}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  });
});
