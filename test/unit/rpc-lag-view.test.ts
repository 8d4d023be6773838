import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lagView } from "../support/rpc-lag-view.js";

const ADDRESS = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

/** The filter of a forwarded rewrite applied to `result`. */
function filtered(method: string, params: unknown[], view: number, result: unknown): unknown {
  const rewrite = lagView(method, params, view);
  assert.ok("params" in rewrite, `${method} is forwarded`);
  return rewrite.filter === undefined ? result : rewrite.filter(result);
}

describe("lagging endpoint view (lagView)", () => {
  it("eth_blockNumber answers the lagging head without asking the node", () => {
    assert.deepEqual(lagView("eth_blockNumber", [], 95), { answer: { result: "0x5f" } });
  });

  it("a receipt above the lagging head reads null; at or below it, as the node answers", () => {
    const receipt = (n: number) => ({
      transactionHash: "0xab",
      blockNumber: `0x${n.toString(16)}`,
    });
    assert.equal(filtered("eth_getTransactionReceipt", ["0xab"], 95, receipt(96)), null);
    assert.deepEqual(filtered("eth_getTransactionReceipt", ["0xab"], 95, receipt(95)), receipt(95));
    assert.equal(filtered("eth_getTransactionReceipt", ["0xab"], 95, null), null);
  });

  it("eth_getTransactionCount at latest or pending asks for the count at the lagging head", () => {
    for (const tag of ["latest", "pending"])
      assert.deepEqual(lagView("eth_getTransactionCount", [ADDRESS, tag], 95), {
        params: [ADDRESS, "0x5f"],
      });
    assert.deepEqual(lagView("eth_getTransactionCount", [ADDRESS, "0x60"], 95), {
      answer: { error: { code: -32000, message: "header not found" } },
    });
    assert.deepEqual(lagView("eth_getTransactionCount", [ADDRESS, "0x10"], 95), {
      params: [ADDRESS, "0x10"],
    });
  });

  it("blocks and block receipts above the lagging head are null; latest means the lagging head", () => {
    for (const method of ["eth_getBlockByNumber", "eth_getBlockReceipts"]) {
      assert.deepEqual(lagView(method, ["0x60", false], 95), { answer: { result: null } });
      assert.deepEqual(lagView(method, ["latest", false], 95), { params: ["0x5f", false] });
      assert.deepEqual(lagView(method, ["0x5f"], 95), { params: ["0x5f"] });
    }
    assert.equal(filtered("eth_getBlockByHash", ["0xh", false], 95, { number: "0x60" }), null);
  });

  it("other methods are forwarded unchanged", () => {
    assert.deepEqual(lagView("eth_call", [{ to: ADDRESS }, "latest"], 95), {
      params: [{ to: ADDRESS }, "latest"],
    });
    assert.deepEqual(lagView("eth_sendRawTransaction", ["0x02"], 95), { params: ["0x02"] });
  });
});
