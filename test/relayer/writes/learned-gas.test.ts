import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { TestOrg } from "../../support/stack.js";
import type { RpcFaultProxy } from "../../support/rpc-fault-proxy.js";
import { assetBody, startWriteStackBehindProxy, type ProxiedWriteStack } from "./helpers.js";
import { untaggedCallData } from "../../../relayer/src/engine/write-tag.js";

// Gas learned from receipts (relayer/src/engine/gas-book.ts), against a real anvil and PostgreSQL.
// The relayer talks to anvil through the fault proxy, which here only counts what it forwards.

describe("gas learned from receipts (anvil + PostgreSQL)", () => {
  let stack: ProxiedWriteStack;
  let proxy: RpcFaultProxy;
  let org: TestOrg;

  before(async () => {
    stack = await startWriteStackBehindProxy();
    proxy = stack.proxy;
    org = await stack.registerOrg({ scopes: ["read", "write:all", "admin:types"] });
  });
  after(() => stack?.stop());

  const estimates = () => proxy.forwarded("eth_estimateGas");
  const issue = async (overrides: Record<string, unknown> = {}) => {
    const res = await org.api("POST", "/api/v1/write/issue-asset", { body: assetBody(overrides) });
    assert.equal(res.status, 200, res.text);
    return res;
  };
  const rowOf = async (id: string) =>
    (
      await stack.database.pool.query<{
        kind: string;
        to_address: string;
        data: string;
        gas_limit: string;
        attempts: Array<{ hash: string; outOfGas?: boolean; superseded?: string }>;
        receipt: { gasUsed: string; status: number } | null;
      }>(
        "SELECT kind, to_address, data, gas_limit::text, attempts, receipt FROM transactions WHERE id = $1",
        [id],
      )
    ).rows[0]!;

  it("estimates a shape once; the next write of that shape takes its limit from the receipt", async () => {
    const before = estimates();
    const first = await issue({ name: "Learned 1" });
    assert.equal(estimates(), before + 1, "the first mint of this shape is estimated");
    const second = await issue({ name: "Learned 2", description: "another text, same shape" });
    assert.equal(estimates(), before + 1, "the second mint was not estimated");
    const row = await rowOf(second.headers.get("x-transaction-id")!);
    const used = BigInt((await rowOf(first.headers.get("x-transaction-id")!)).receipt!.gasUsed);
    assert.ok(BigInt(row.gas_limit) > used, `limit ${row.gas_limit} above the ${used} used`);

    // Another shape (an asset-type name over 32 bytes is one more calldata word) is estimated.
    const type = `An asset type with a long name ${Date.now()}`;
    const registered = await org.api("POST", "/api/v1/write/register-asset-type", {
      body: { typeName: type },
    });
    assert.equal(registered.status, 200, registered.text);
    const beforeOther = estimates();
    await issue({ assetType: type });
    assert.equal(estimates(), beforeOther + 1, "a new shape is estimated");
  });

  it("a learned limit that runs out of gas is estimated again and sent once more: one token", async () => {
    const seed = await issue({ name: "Seed" });
    const seedRow = await rowOf(seed.headers.get("x-transaction-id")!);
    // The book's shapes are of the call, without the write's tag (engine/write-tag.ts).
    const shape = {
      kind: seedRow.kind,
      to: seedRow.to_address,
      data: untaggedCallData(seedRow.data),
    };
    // Teach the book a figure far too low for this shape (as if the contract got dearer).
    stack.ctx.engine.gas.forget(shape);
    stack.ctx.engine.gas.learn(shape, 30_000n);

    const supplyBefore = await stack.token.totalSupply();
    const before = estimates();
    const res = await issue({ name: "Out of gas once" });
    assert.equal(await stack.token.totalSupply(), supplyBefore + 1n, "exactly one token minted");
    assert.equal(estimates(), before + 1, "re-estimated once after the out-of-gas");

    const row = await rowOf(res.headers.get("x-transaction-id")!);
    assert.equal(row.attempts.length, 2, JSON.stringify(row.attempts));
    const [spent, sent] = row.attempts;
    assert.equal(spent!.outOfGas, true);
    assert.equal(spent!.superseded, spent!.hash);
    const failed = await stack.provider.getTransactionReceipt(spent!.hash);
    assert.equal(failed?.status, 0, "the first attempt is on chain, reverted out of gas");
    assert.equal(failed?.gasUsed, 52_100n, "it used the learned limit: 30,000 + one cold slot");
    assert.equal(row.receipt!.status, 1);
    assert.equal(sent!.outOfGas, undefined);
    assert.ok(BigInt(row.gas_limit) > 52_100n, `re-estimated limit ${row.gas_limit}`);
    // The book learned the real figure again from the successful receipt.
    assert.ok(stack.ctx.engine.gas.limitFor(shape)! > BigInt(row.receipt!.gasUsed));
  });
});
