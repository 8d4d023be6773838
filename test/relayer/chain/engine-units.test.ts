import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { marketplaceInterface, assetTokenInterface } from "../../../relayer/src/chain/abis.js";
import { bumpFees } from "../../../relayer/src/chain/fee-oracle.js";
import { IllegalTransitionError } from "../../../relayer/src/chain/tx-lifecycle.js";
import { TxStore } from "../../../relayer/src/chain/tx-store.js";
import { revertReason } from "../../../relayer/src/chain/revert-reasons.js";
import { createDatabase, type Database } from "../../../relayer/src/db/client.js";
import { runMigrations } from "../../../relayer/src/db/migrate.js";
import { orgs, wallets } from "../../../relayer/src/db/schema/index.js";
import { parseCid } from "../../../relayer/src/writes/cid.js";
import { canonicalJson } from "../../../relayer/src/writes/metadata.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "../../support/postgres.js";

describe("revert reasons", () => {
  it("maps the contracts' custom errors to the spec's strings", () => {
    assert.equal(
      revertReason(
        assetTokenInterface.encodeErrorResult("AssetToken__BelowMinStake", [1n, 10n ** 17n]),
      ),
      "Below min stake",
    );
    assert.equal(
      revertReason(marketplaceInterface.encodeErrorResult("Marketplace__ListingNotActive", [3n])),
      "Listing not active",
    );
    assert.equal(
      revertReason(marketplaceInterface.encodeErrorResult("Marketplace__PriceAboveMax", [2n, 1n])),
      "Price above max",
    );
  });
  it("passes Error(string) reasons through and names unknown selectors", () => {
    const data =
      "0x08c379a0" + marketplaceInterface.getAbiCoder().encode(["string"], ["nope"]).slice(2);
    assert.equal(revertReason(data), "nope");
    assert.equal(revertReason("0xdeadbeef"), "execution reverted (0xdeadbeef)");
    assert.equal(revertReason("0x"), "execution reverted");
  });
});

describe("fee bump", () => {
  it("raises both caps by at least 12.5% and never below the current quote", () => {
    const bumped = bumpFees(
      { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n },
      { maxFeePerGas: 900n, maxPriorityFeePerGas: 50n },
    );
    assert.ok(bumped.maxFeePerGas * 1000n >= 1000n * 1125n);
    assert.ok(bumped.maxPriorityFeePerGas * 1000n >= 100n * 1125n);
    const market = bumpFees(
      { maxFeePerGas: 1000n, maxPriorityFeePerGas: 100n },
      { maxFeePerGas: 5000n, maxPriorityFeePerGas: 500n },
    );
    assert.deepEqual(market, { maxFeePerGas: 5000n, maxPriorityFeePerGas: 500n });
  });
});

describe("CIDs and canonical JSON", () => {
  it("parses v0 and v1 CIDs into the contract's parts and refuses others", () => {
    const v0 = parseCid("QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG").parts;
    assert.deepEqual([v0.version, v0.codec, v0.hashCode], [0, 0x70n, 0x12]);
    const v1 = parseCid("bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi").parts;
    assert.deepEqual([v1.version, v1.codec, v1.hashCode], [1, 0x70n, 0x12]);
    assert.throws(() => parseCid("hello"), /Invalid field: ipfsHash/);
    assert.throws(() => parseCid("bafkqaaa"), /32-byte digests/); // identity hash, empty digest
  });
  it("canonical JSON sorts keys and drops undefined", () => {
    assert.equal(canonicalJson({ b: 1, a: [{ y: 2, x: undefined }] }), '{"a":[{"y":2}],"b":1}');
  });
});

describe("transaction store (PostgreSQL)", () => {
  let testDb: TestDatabase;
  let database: Database;
  let store: TxStore;
  const address = "0x" + "11".repeat(20);
  const row = (id: string) => ({
    id,
    orgId: "org_1",
    walletId: "wal_1",
    kind: "issue-asset",
    requestHash: "",
    fromAddress: address,
  });
  const attempt = (hash: string) => ({
    hash,
    maxFeePerGas: "2",
    maxPriorityFeePerGas: "1",
    sentAt: new Date().toISOString(),
  });
  before(async () => {
    testDb = await createTestDatabase();
    database = createDatabase(testDb.url);
    await runMigrations(database);
    store = new TxStore(database);
    await database.db.insert(orgs).values({ id: "org_1", name: "One", scopes: [] });
    await database.db
      .insert(wallets)
      .values({ id: "wal_1", orgId: "org_1", address, encryptedKey: "x" });
  });
  after(async () => {
    await database?.close();
    await testDb?.drop();
    await stopTestServer();
  });

  it("gives a wallet's lease to one process at a time, and to another once it expires", async () => {
    const [a, b] = await Promise.all([
      store.claimWallets("owner-a", ["wal_1"], 60_000),
      store.claimWallets("owner-b", ["wal_1"], 60_000),
    ]);
    assert.equal(a.length + b.length, 1, "exactly one owner holds the lease");
    const holder = a.length === 1 ? "owner-a" : "owner-b";
    const other = holder === "owner-a" ? "owner-b" : "owner-a";
    assert.deepEqual(await store.claimWallets(other, ["wal_1"], 60_000), []);
    assert.deepEqual(await store.renewLeases(holder, ["wal_1"], 1), ["wal_1"]); // expires in 1 ms
    await new Promise((r) => setTimeout(r, 20));
    const taken = await store.claimWallets(other, ["wal_1"], 60_000);
    assert.deepEqual(
      taken.map((w) => w.id),
      ["wal_1"],
    );
    assert.deepEqual(
      await store.renewLeases(holder, ["wal_1"], 60_000),
      [],
      "the old holder lost it",
    );
    await store.releaseLeases(other);
  });

  it("records first attempts with their nonces in one write, and refuses rows that are not queued", async () => {
    const ids = ["tx_a00000000000000000000001", "tx_a00000000000000000000002"];
    assert.equal(await store.record("wal_1", ids.map(row), undefined), true);
    await store.markSent("wal_1", 7, [
      { id: ids[0]!, nonce: 5, attempt: attempt("0x01") },
      { id: ids[1]!, nonce: 6, attempt: attempt("0x02") },
    ]);
    const sent = await store.get(ids[1]!);
    assert.equal(sent?.state, "sent");
    assert.equal(sent?.nonce, 6);
    assert.deepEqual(
      sent?.attempts.map((a) => a.hash),
      ["0x02"],
    );
    const [wallet] = await database.db.select().from(wallets);
    assert.equal(wallet!.nextNonce, 7n);
    // A sent row cannot be sent again as if it were new: nothing changes.
    await assert.rejects(
      store.markSent("wal_1", 8, [{ id: ids[0]!, nonce: 7, attempt: attempt("0x03") }]),
      IllegalTransitionError,
    );
    assert.equal((await store.get(ids[0]!))?.nonce, 5);
  });

  it("finalises sent rows once and leaves final rows alone", async () => {
    const id = "tx_a00000000000000000000001";
    const receipt = {
      hash: "0x01",
      blockNumber: 9,
      blockHash: "0x" + "ab".repeat(32),
      status: 1,
      gasUsed: "1",
      effectiveGasPrice: "1",
    };
    assert.deepEqual(
      await store.finalise([{ id, status: "confirmed", receipt, result: { tokenId: "1" } }]),
      [id],
    );
    // Already final: a second finalisation (another process, a late block) changes nothing.
    assert.deepEqual(
      await store.finalise([{ id, status: "failed", reason: "x", errorKind: "revert", receipt }]),
      [],
    );
    assert.equal((await store.get(id))?.state, "confirmed");
    await store.requeue([id]);
    assert.equal(
      (await store.get(id))?.state,
      "confirmed",
      "a final row never goes back to the queue",
    );
  });
});
