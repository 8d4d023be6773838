import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { getAddress } from "ethers";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { SEED_OWNER, SEED_SELLER, seedReadModel } from "./seed-read-model.js";

const COUNT = 250;

describe("read API (from the indexed database)", () => {
  let stack: TestStack;
  const get = (path: string) => stack.api("GET", path);

  before(async () => {
    stack = await startTestStack({
      deploy: false,
      logLevel: "warn",
      config: { coinPrice: { fixedUsd: "2.50", url: undefined, ttlSeconds: 60 } },
    });
    await seedReadModel(stack.database.pool, COUNT);
    await stack.database.pool.query(
      `INSERT INTO token_metadata (token_id, mint_tx_hash, cid, json)
       VALUES (7, '0x' || lpad(to_hex(7), 64, '0'), 'bafyseed7doc', $1)`,
      [
        JSON.stringify({
          name: "Seven",
          description: "Lucky",
          image: "ipfs://img",
          external_url: "https://x.test/7",
          attributes: [],
        }),
      ],
    );
  });

  after(async () => {
    await stack?.stop();
  });

  it("GET /assets pages through every asset newest first with an opaque cursor", async () => {
    const first = await get("/api/v1/assets");
    assert.equal(first.status, 200);
    assert.equal(first.body.data.length, 20);
    assert.equal(first.body.data[0].tokenId, String(COUNT));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/v1/assets?limit=100${cursor ? `&cursor=${cursor}` : ""}`);
      assert.equal(res.status, 200, res.text);
      seen.push(...res.body.data.map((a: { tokenId: string }) => a.tokenId));
      cursor = res.body.nextCursor;
    } while (cursor !== null);
    assert.equal(seen.length, COUNT);
    assert.equal(new Set(seen).size, COUNT);
    assert.deepEqual(
      seen.map(Number),
      [...seen.map(Number)].sort((a, b) => b - a),
    );
  });

  it("GET /assets filters by owner (any case) and by asset type", async () => {
    const byOwner = await get(`/api/v1/assets?limit=100&owner=${getAddress(SEED_OWNER)}`);
    assert.equal(byOwner.status, 200, byOwner.text);
    assert.equal(byOwner.body.data.length, COUNT / 10);
    assert.ok(
      byOwner.body.data.every((a: { owner: string }) => a.owner === getAddress(SEED_OWNER)),
    );
    const lower = await get(`/api/v1/assets?limit=100&owner=${SEED_OWNER}`);
    assert.equal(lower.body.data.length, COUNT / 10);
    const bonds = await get(`/api/v1/assets?limit=100&assetType=Bond&owner=${SEED_OWNER}`);
    assert.equal(bonds.body.data.length, COUNT / 10);
    const real = await get(
      `/api/v1/assets?limit=100&assetType=${encodeURIComponent("Real Estate")}`,
    );
    assert.ok(real.body.data.every((a: { assetType: string }) => a.assetType === "Real Estate"));
    assert.equal(
      (await get("/api/v1/assets?assetType=bond")).body.data.length,
      0,
      "case-sensitive",
    );
  });

  it("GET /assets answers 400 with a clear message for bad query parameters", async () => {
    const cases: Array<[string, RegExp]> = [
      ["limit=0", /limit/],
      ["limit=101", /limit/],
      ["limit=abc", /limit/],
      ["owner=0x123", /owner/],
      ["cursor=not-a-cursor", /Invalid cursor/],
      ["colour=blue", /Unknown field: colour/],
    ];
    for (const [query, message] of cases) {
      const res = await get(`/api/v1/assets?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(res.body.error, message, query);
    }
  });

  it("GET /assets/{id} returns the full record, 404 for unknown and 400 for malformed ids", async () => {
    const res = await get("/api/v1/assets/10");
    assert.equal(res.status, 200);
    assert.equal(res.body.tokenId, "10");
    assert.equal(res.body.assetType, "Bond");
    assert.equal(res.body.stakedAmount, "0.1");
    assert.equal(res.body.stakedAmountWei, "100000000000000000");
    assert.equal(res.body.owner, getAddress(SEED_OWNER));
    assert.deepEqual(res.body.listing, null, "listing 2 is cancelled");
    const listed = await get("/api/v1/assets/20"); // listing 4: active
    assert.equal(listed.body.listing.listingId, "4");
    assert.equal(listed.body.listing.priceInCOIN, "0.004");
    assert.equal(listed.body.listing.price, "0.004", "price stays as an alias until /api/v2");
    const named = await get("/api/v1/assets/7");
    assert.equal(named.body.name, "Seven");
    assert.equal(named.body.externalUrl, "https://x.test/7");
    assert.deepEqual((await get("/api/v1/assets/999999")).body, { error: "Asset not found" });
    assert.equal((await get("/api/v1/assets/999999")).status, 404);
    for (const bad of ["abc", "0", "-1", "1.5", "01"])
      assert.equal((await get(`/api/v1/assets/${bad}`)).status, 400, bad);
  });

  it("GET /nft/{id} serves our metadata document, or a minimal one pointing at IPFS", async () => {
    const ours = await get("/api/v1/nft/7");
    assert.equal(ours.status, 200);
    assert.equal(ours.body.name, "Seven");
    assert.equal(ours.body.external_url, "https://x.test/7");
    const other = await get("/api/v1/nft/8");
    assert.equal(other.body.external_url, "ipfs://bafyseed8");
    assert.deepEqual(other.body.attributes, [{ trait_type: "Asset Type", value: "Bond" }]);
    assert.equal((await get("/api/v1/nft/999999")).status, 404);
  });

  it("GET /marketplace filters by state (expiry computed) and seller; /marketplace/{id} reports the state", async () => {
    const states = ["active", "sold", "cancelled", "expired"] as const;
    let total = 0;
    for (const state of states) {
      const res = await get(`/api/v1/marketplace?state=${state}&limit=100`);
      assert.equal(res.status, 200, res.text);
      const alias = await get(`/api/v1/marketplace?status=${state}&limit=100`);
      assert.deepEqual(alias.body, res.body, "status is accepted as an alias of state");
      assert.ok(res.body.data.length > 0, state);
      assert.ok(
        res.body.data.every((l: { state: string }) => l.state === state),
        state,
      );
      total += res.body.data.length;
    }
    assert.equal(total, COUNT / 5);
    const bySeller = await get(`/api/v1/marketplace?seller=${SEED_SELLER}&limit=5`);
    assert.equal(bySeller.body.data.length, 5);
    assert.ok(bySeller.body.nextCursor);
    const next = await get(
      `/api/v1/marketplace?seller=${SEED_SELLER}&limit=5&cursor=${bySeller.body.nextCursor}`,
    );
    assert.equal(next.body.data[0].listingId, String(Number(bySeller.body.data[4].listingId) - 1));
    const expired = await get("/api/v1/marketplace/3");
    assert.equal(expired.body.state, "expired");
    const sold = await get("/api/v1/marketplace/1");
    assert.equal(sold.body.state, "sold");
    assert.equal(sold.body.buyer, getAddress(SEED_OWNER));
    assert.equal(sold.body.priceInCOIN, sold.body.price, "priceInCOIN, with price as its alias");
    assert.equal(typeof sold.body.durationDays, "number");
    assert.ok(sold.body.soldAt);
    assert.equal((await get("/api/v1/marketplace?status=open")).status, 400);
    assert.equal((await get("/api/v1/marketplace?state=open")).status, 400);
    assert.deepEqual((await get("/api/v1/marketplace?state=sold&status=active")).body, {
      error: "Invalid field: state (state and its alias status disagree)",
    });
    assert.deepEqual((await get("/api/v1/marketplace/999999")).body, {
      error: "Listing not found",
    });
    assert.equal((await get("/api/v1/marketplace/x")).status, 400);
  });

  it("GET /status and /coin-price report chain, indexer and price", async () => {
    const status = await get("/api/v1/status");
    assert.equal(status.status, 200);
    assert.equal(status.body.chainId, 1236);
    assert.equal(typeof status.body.latestBlock, "number");
    assert.equal(status.body.database.ok, true);
    assert.equal(status.body.rpc.ok, true);
    assert.ok(
      "lag" in status.body && "averageBlockTime" in status.body && "contracts" in status.body,
    );
    const price = await get("/api/v1/coin-price");
    assert.deepEqual(
      { symbol: price.body.symbol, priceUsd: price.body.priceUsd },
      { symbol: "COIN", priceUsd: "2.50" },
    );
    assert.equal(price.body.source, "config:COIN_PRICE_USD");
  });
});
