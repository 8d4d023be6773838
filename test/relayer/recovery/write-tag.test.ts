import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  encodeWriteTag,
  readWriteTag,
  tagCallData,
  TAGGED_KINDS,
} from "../../../relayer/src/engine/write-tag.js";
import type { TestOrg } from "../../support/stack.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";

/** Gas of calldata bytes (EIP-2028): 16 a non-zero byte, 4 a zero byte. */
function calldataGas(hex: string): number {
  let gas = 0;
  for (let i = 0; i < hex.length; i += 2) gas += hex.slice(i, i + 2) === "00" ? 4 : 16;
  return gas;
}

/**
 * The write tag (engine/write-tag.ts, docs/recovery.md "The write tag"): every kind of write is
 * sent tagged and the contracts ignore the tag (each write succeeds and does what it says); the
 * tag names the write, its batch parent and its idempotency key's hash; its gas cost.
 */
describe("write tag", { timeout: 180_000 }, () => {
  let stack: WriteStack;
  let org: TestOrg;
  let buyer: TestOrg;
  before(async () => {
    stack = await startWriteStack();
    [org, buyer] = await Promise.all([stack.registerOrg(), stack.registerOrg()]);
  });
  after(async () => {
    await stack?.stop();
  });

  it("reads back what it encodes, and nothing from calldata without one", () => {
    const id = "tx_00112233445566778899aabb";
    for (const kind of TAGGED_KINDS) {
      const plain = readWriteTag(tagCallData("0xabcdef01", { kind, id }));
      assert.deepEqual(plain, { tag: { kind, id }, callData: "0xabcdef01" });
    }
    const full = {
      kind: "issue-asset",
      id,
      parent: { id: "tx_ffeeddccbbaa998877665544", index: 7 },
      key: { keyTag: "0123456789abcdef01234567", requestTag: "89abcdef" },
    };
    assert.deepEqual(readWriteTag(tagCallData("0x", full)), { tag: full, callData: "0x" });
    assert.equal(encodeWriteTag({ kind: "transfer", id }).length / 2, 18);
    assert.equal(encodeWriteTag(full).length / 2, 48);
    assert.equal(readWriteTag("0x"), undefined);
    assert.equal(readWriteTag("0xa9059cbb" + "00".repeat(64)), undefined);
    assert.throws(() => encodeWriteTag({ kind: "nonce-fill", id }), /no tag for write kind/);
  });
  it("every kind is sent tagged; the contracts ignore the tag", async () => {
    const sent: Array<{ kind: string; id: string; parent?: string; keyed: boolean }> = [];
    const call = async (
      who: TestOrg,
      path: string,
      body: Record<string, unknown>,
      key?: string,
    ): Promise<Record<string, unknown>> => {
      const res = await who.api("POST", path, {
        body,
        ...(key === undefined ? {} : { headers: { "Idempotency-Key": key } }),
      });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return { ...(res.body as Record<string, unknown>), id: res.headers.get("x-transaction-id") };
    };
    const minted = await call(org, "/api/v1/write/issue-asset", assetBody(), "tag-issue-1");
    sent.push({ kind: "issue-asset", id: String(minted.id), keyed: true });
    const batch = await call(
      org,
      "/api/v1/write/batch-issue",
      { assets: [assetBody({ name: "B1" }), assetBody({ name: "B2" })] },
      "tag-batch-1",
    );
    const tokens = (batch.results as Array<{ tokenId: string }>).map((r) => r.tokenId);
    const [walletOfBuyer] = (
      await stack.database.pool.query<{ address: string }>(
        `SELECT address FROM wallets WHERE org_id = $1`,
        [buyer.orgId],
      )
    ).rows;
    const moved = await call(org, "/api/v1/write/transfer", {
      tokenId: minted.tokenId,
      toAddress: walletOfBuyer!.address,
    });
    sent.push({ kind: "transfer", id: String(moved.id), keyed: false });
    const listed = await call(org, "/api/v1/write/marketplace/list", {
      tokenId: tokens[0],
      priceInCOIN: "0.01",
    });
    sent.push({ kind: "list", id: String(listed.id), keyed: false });
    const bought = await call(buyer, "/api/v1/write/marketplace/buy", {
      listingId: listed.listingId,
    });
    sent.push({ kind: "buy", id: String(bought.id), keyed: false });
    const relisted = await call(org, "/api/v1/write/marketplace/list", {
      tokenId: tokens[1],
      priceInCOIN: "0.01",
    });
    const delisted = await call(org, "/api/v1/write/marketplace/delist", {
      listingId: relisted.listingId,
    });
    sent.push({ kind: "delist", id: String(delisted.id), keyed: false });
    const redeemed = await call(org, "/api/v1/write/redeem-asset", { tokenId: tokens[1] });
    sent.push({ kind: "redeem-asset", id: String(redeemed.id), keyed: false });
    assert.equal(await stack.token.ownerOf(BigInt(String(minted.tokenId))), walletOfBuyer!.address);
    assert.equal(await stack.token.ownerOf(BigInt(tokens[0]!)), walletOfBuyer!.address);

    for (const write of sent) {
      const row = await stack.ctx.engine.store.get(write.id);
      const tx = await stack.rpc<{ input: string }>("eth_getTransactionByHash", [
        row!.receipt!.hash,
      ]);
      const read = readWriteTag(tx.input);
      assert.equal(read?.tag.kind, write.kind);
      assert.equal(read?.tag.id, write.id);
      assert.equal(read?.tag.key !== undefined, write.keyed, `${write.kind} keyed`);
    }
    const items = await stack.ctx.engine.store.children(String(batch.id));
    assert.equal(items.length, 2);
    for (const item of items) {
      const tx = await stack.rpc<{ input: string }>("eth_getTransactionByHash", [
        item.receipt!.hash,
      ]);
      const read = readWriteTag(tx.input);
      assert.deepEqual(read?.tag.parent, { id: batch.id, index: item.itemIndex });
      assert.equal(read?.tag.id, item.id);
      assert.ok(read?.tag.key !== undefined, "a batch item carries its batch's key");
    }
  });

  it("costs its calldata's gas and nothing more (a keyed mint)", async () => {
    const minted = await org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody(),
      headers: { "Idempotency-Key": "tag-gas-1" },
    });
    assert.equal(minted.status, 200, minted.text);
    const row = await stack.ctx.engine.store.get(minted.headers.get("x-transaction-id")!);
    const read = readWriteTag(row!.data)!;
    const tagHex = row!.data!.slice(read.callData.length);
    // The same mint estimated with and without its tag, from the same wallet and state.
    const estimate = (data: string) =>
      stack.rpc<string>("eth_estimateGas", [
        {
          from: row!.fromAddress,
          to: row!.toAddress,
          data,
          value: `0x${BigInt(row!.value).toString(16)}`,
        },
      ]);
    const [tagged, untagged] = await Promise.all([estimate(row!.data!), estimate(read.callData)]);
    const cost = Number(BigInt(tagged) - BigInt(untagged));
    assert.equal(
      cost,
      calldataGas(tagHex),
      `the tag's ${tagHex.length / 2} bytes cost ${cost} gas`,
    );
    console.log(`# tag: ${tagHex.length / 2} bytes, ${cost} gas on a keyed mint`);
  });
});
