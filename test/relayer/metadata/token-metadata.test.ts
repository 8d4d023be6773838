import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStackWithOrgs, type WriteStack } from "../writes/helpers.js";

/** A CID a caller might give as `ipfsHash` (any org can send the same one). */
const SHARED_CID = "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku";

describe("token metadata is bound to the token its own write minted", () => {
  let stack: WriteStack, alice: TestOrg, mallory: TestOrg;
  // The write stack runs the indexer, and a synchronous write answers once its block is indexed.
  before(async () => ([stack, alice, mallory] = await startWriteStackWithOrgs(2)));
  after(() => stack?.stop());

  it("two orgs racing with the same ipfsHash and different names: each token shows its own", async () => {
    const [a, m] = await Promise.all([
      alice.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({
          name: "Alice Tower",
          description: "Alice's building",
          ipfsHash: SHARED_CID,
        }),
      }),
      mallory.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({
          name: "Mallory Shack",
          description: "Not Alice's",
          ipfsHash: SHARED_CID,
        }),
      }),
    ]);
    assert.equal(a.status, 200, a.text);
    assert.equal(m.status, 200, m.text);
    assert.equal(a.body.ipfsHash, SHARED_CID, "the caller's CID stays the on-chain reference");
    assert.equal(m.body.ipfsHash, SHARED_CID);

    for (const [write, name, description] of [
      [a, "Alice Tower", "Alice's building"],
      [m, "Mallory Shack", "Not Alice's"],
    ] as const) {
      const asset = await stack.api("GET", `/api/v1/assets/${write.body.tokenId}`);
      assert.equal(asset.status, 200, asset.text);
      assert.equal(asset.body.name, name);
      assert.equal(asset.body.description, description);
      assert.equal(asset.body.ipfsHash, SHARED_CID);
      const nft = await stack.api("GET", `/api/v1/nft/${write.body.tokenId}`);
      assert.equal(nft.body.name, name);
      const { rows } = await stack.database.pool.query<{ payload: { data: { name: string } } }>(
        `SELECT payload FROM webhook_events WHERE kind = 'asset.issued' AND tx_hash = $1`,
        [write.body.txHash],
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.payload.data.name, name, "the asset.issued payload");
    }
  });

  it("every stored document's CID is the hash of its own bytes, never a caller's ipfsHash", async () => {
    const { rows } = await stack.database.pool.query<{ cid: string; json: string }>(
      `SELECT cid, json FROM token_metadata`,
    );
    assert.ok(rows.length >= 2);
    for (const row of rows) {
      const expected = CID.createV1(0x55, await sha256.digest(new TextEncoder().encode(row.json)));
      assert.equal(row.cid, expected.toString());
      assert.notEqual(row.cid, SHARED_CID);
    }
  });

  it("nothing is stored for a write that is refused", async () => {
    const count = async () =>
      Number(
        (await stack.database.pool.query<{ n: string }>(`SELECT count(*) AS n FROM token_metadata`))
          .rows[0]!.n,
      );
    const before = await count();
    const refused = await alice.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "Too Dear", stakedAmount: "1000000" }),
    });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.error, /^Insufficient funds/);
    assert.equal(await count(), before);
    const { rows } = await stack.database.pool.query(
      `SELECT 1 FROM transactions WHERE context->>'name' = 'Too Dear'`,
    );
    assert.equal(rows.length, 0);
  });
});
