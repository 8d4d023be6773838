import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TestOrg } from "../../support/stack.js";
import { startDialectProxy, type DialectProxy } from "../../support/dialect-proxy.js";
import { assetBody, startWriteStackWithOrgs, waitForStatus, type WriteStack } from "./helpers.js";

/** `rpcProxy` for the stack that also hands the proxy to the test. */
function behind(options: Parameters<typeof startDialectProxy>[1], seen: { proxy?: DialectProxy }) {
  return async (anvilUrl: string) => {
    seen.proxy = await startDialectProxy(anvilUrl, options);
    return seen.proxy;
  };
}

const issue = async (org: TestOrg) => {
  const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody() });
  assert.equal(res.status, 200, res.text);
  return res.body as { tokenId: string; txHash: string };
};

describe("writes on a node without eth_getBlockReceipts (-32601)", () => {
  let stack: WriteStack, org: TestOrg;
  const seen: { proxy?: DialectProxy } = {};
  before(async () => {
    [stack, org] = await startWriteStackWithOrgs(1, {
      // 1 s blocks: the write waits in the pool and is found after its block, as on a real chain.
      blockTime: 1,
      rpcProxy: behind({ missingMethods: ["eth_getBlockReceipts"] }, seen),
    });
  });
  after(() => stack?.stop());

  it("issue-asset is mined and answers 200: the receipt comes from the per-transaction look-up", async () => {
    const first = await issue(org);
    assert.match(first.txHash, /^0x[0-9a-f]{64}$/);
    const second = await issue(org);
    assert.equal(BigInt(second.tokenId), BigInt(first.tokenId) + 1n);
    const methods = seen.proxy!.methods;
    assert.ok(methods.includes("eth_getBlockReceipts"), "the engine asked for block receipts");
    assert.ok(methods.includes("eth_getTransactionReceipt"), "and settled per transaction");
  });

  it("the status reports the fee model it prices with (type 2 from eth_feeHistory on anvil)", async () => {
    const status = await org.api("GET", "/api/v1/status");
    assert.equal(status.status, 200);
    assert.deepEqual(
      { type: status.body.feeModel.type, source: status.body.feeModel.source },
      { type: 2, source: "eth_feeHistory" },
    );
    assert.match(status.body.feeModel.detectedAt, /^\d{4}-\d\d-\d\dT/);
  });
});

describe("writes on a node that refuses JSON-RPC batches (geth's 'batch too large')", () => {
  let stack: WriteStack, org: TestOrg;
  const seen: { proxy?: DialectProxy } = {};
  before(async () => {
    [stack, org] = await startWriteStackWithOrgs(1, {
      blockTime: 1,
      rpcProxy: behind({ refuseBatches: "geth-too-large" }, seen),
    });
  });
  after(() => stack?.stop());

  it("several async writes of one wallet are all confirmed through single calls", async () => {
    const accepted = await Promise.all(
      Array.from({ length: 4 }, () =>
        org.api("POST", "/api/v1/write/issue-asset", {
          body: assetBody(),
          headers: { prefer: "respond-async" },
        }),
      ),
    );
    for (const res of accepted) assert.equal(res.status, 202, res.text);
    for (const res of accepted) {
      const id = (res.body as { transactionId: string }).transactionId;
      await waitForStatus(org, id, (body) => body.status === "confirmed", 30_000);
    }
    assert.ok(seen.proxy!.batches.length > 0, "a batch was tried and refused");
    assert.equal(
      stack.ctx.rpc.endpoints[0]!.batches,
      "refused",
      "the client remembers the endpoint refuses batches",
    );
  });
});

describe("the relayer on anvil --hardfork berlin (no base fee, no PUSH0)", () => {
  let stack: WriteStack, org: TestOrg;
  before(async () => {
    [stack, org] = await startWriteStackWithOrgs(1, { anvil: { hardfork: "berlin" } });
  });
  after(() => stack?.stop());

  it("deploys the berlin build there, and the status reports legacy type-0 pricing from eth_gasPrice", async () => {
    const status = await org.api("GET", "/api/v1/status");
    assert.equal(status.status, 200);
    assert.equal(status.body.feeModel.type, 0);
    assert.equal(status.body.feeModel.source, "eth_gasPrice");
    assert.equal(
      status.body.feeModel.description,
      "legacy gasPrice (type 0), price from eth_gasPrice",
    );
  });

  it("issue-asset is mined as a legacy transaction", async () => {
    const body = await issue(org);
    assert.match(body.txHash, /^0x[0-9a-f]{64}$/);
    const mined = await stack.provider.getTransaction(body.txHash);
    assert.equal(mined?.type, 0, "a type-0 (gasPrice) transaction");
  });
});
