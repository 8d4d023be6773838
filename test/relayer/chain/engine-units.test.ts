import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { marketplaceInterface, assetTokenInterface } from "../../../relayer/src/chain/abis.js";
import { bumpFees } from "../../../relayer/src/chain/fee-oracle.js";
import { NonceAllocator } from "../../../relayer/src/chain/nonce-allocator.js";
import { revertReason } from "../../../relayer/src/chain/revert-reasons.js";
import type { RpcClient } from "../../../relayer/src/chain/rpc-client.js";
import { createDatabase, type Database } from "../../../relayer/src/db/client.js";
import { runMigrations } from "../../../relayer/src/db/migrate.js";
import { orgs, transactions, wallets } from "../../../relayer/src/db/schema/index.js";
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

describe("nonce allocator (PostgreSQL row lock)", () => {
  let testDb: TestDatabase;
  let database: Database;
  before(async () => {
    testDb = await createTestDatabase();
    database = createDatabase(testDb.url);
    await runMigrations(database);
    await database.db.insert(orgs).values({ id: "org_1", name: "One", scopes: [] });
    await database.db
      .insert(wallets)
      .values({ id: "wal_1", orgId: "org_1", address: "0x" + "11".repeat(20), encryptedKey: "x" });
  });
  after(async () => {
    await database?.close();
    await testDb?.drop();
    await stopTestServer();
  });

  it("hands out consecutive, unique nonces to concurrent allocators and resyncs a NULL counter from the chain", async () => {
    const fakeRpc = { call: () => Promise.resolve("0x5") } as unknown as RpcClient; // chain says 5 sent
    const ids = Array.from({ length: 40 }, (_, i) => `tx_${i.toString().padStart(24, "0")}`);
    await database.db.insert(transactions).values(
      ids.map((id) => ({
        id,
        orgId: "org_1",
        walletId: "wal_1",
        kind: "issue-asset",
        requestHash: "",
        fromAddress: "0x" + "11".repeat(20),
      })),
    );
    const allocators = [
      new NonceAllocator(database, fakeRpc),
      new NonceAllocator(database, fakeRpc),
    ];
    const fees = { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n };
    const results = await Promise.all(
      ids.map((id, i) => allocators[i % 2]!.assign("wal_1", "0x" + "11".repeat(20), [id], fees)),
    );
    const nonces = results.flatMap((m) => [...m.values()]).sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: 40 }, (_, i) => i + 5),
    );
    const [wallet] = await database.db.select().from(wallets);
    assert.equal(wallet!.nextNonce, 45n);
    assert.equal(await allocators[0]!.release("wal_1", 44), true); // last one: rewound
    assert.equal(await allocators[0]!.release("wal_1", 10), false); // in the middle: needs a filler
  });
});
