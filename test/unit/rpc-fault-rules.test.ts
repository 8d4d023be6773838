import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  indexingInProgress,
  methodNotFound,
  RuleBook,
  type FaultAction,
} from "../support/rpc-fault-rules.js";

const DROP: FaultAction = { kind: "drop" };

describe("fault proxy rules (RuleBook)", () => {
  it("select returns nothing for a call no rule matches, so it is forwarded unchanged", () => {
    const rules = new RuleBook();
    rules.add({ method: "eth_getTransactionReceipt", action: DROP }, 0);
    assert.equal(rules.select("eth_blockNumber", [], "single", 0), undefined);
  });

  it("select applies the first matching rule, and '*' matches every method", () => {
    const rules = new RuleBook();
    const receipts = rules.add({ method: ["eth_getTransactionReceipt"], action: DROP }, 0);
    rules.add({ method: "*", action: indexingInProgress() }, 0);
    assert.equal(rules.select("eth_getTransactionReceipt", [], "single", 0), DROP);
    assert.deepEqual(rules.select("eth_call", [], "batch", 0), indexingInProgress());
    assert.equal(receipts.hits, 1);
  });

  it("a rule with times lapses after that many calls", () => {
    const rules = new RuleBook();
    const rule = rules.add({ method: "eth_sendRawTransaction", action: DROP, times: 2 }, 0);
    const picks = [1, 2, 3].map(() => rules.select("eth_sendRawTransaction", [], "batch", 0));
    assert.deepEqual(picks, [DROP, DROP, undefined]);
    assert.equal(rule.hits, 2);
    assert.equal(rule.active, false);
  });

  it("a rule with forMs applies only inside its window", () => {
    const rules = new RuleBook();
    rules.add({ method: "eth_getBlockReceipts", action: DROP, forMs: 1_000 }, 5_000);
    assert.equal(rules.select("eth_getBlockReceipts", [], "single", 5_999), DROP);
    assert.equal(rules.select("eth_getBlockReceipts", [], "single", 6_000), undefined);
  });

  it("a rule with every applies to every n-th matching call only", () => {
    const rules = new RuleBook();
    rules.add({ method: "*", action: DROP, every: 3 }, 0);
    const picks = Array.from({ length: 7 }, () => rules.select("eth_chainId", [], "single", 0));
    assert.deepEqual(
      picks.map((p) => p !== undefined),
      [false, false, true, false, false, true, false],
    );
  });

  it("where and when narrow a rule to single calls or batch entries and to given params", () => {
    const rules = new RuleBook();
    rules.add(
      {
        method: "eth_getTransactionCount",
        action: DROP,
        where: "batch",
        when: (p) => p[1] === "latest",
      },
      0,
    );
    assert.equal(
      rules.select("eth_getTransactionCount", ["0x1", "latest"], "single", 0),
      undefined,
    );
    assert.equal(
      rules.select("eth_getTransactionCount", ["0x1", "pending"], "batch", 0),
      undefined,
    );
    assert.equal(rules.select("eth_getTransactionCount", ["0x1", "latest"], "batch", 0), DROP);
  });

  it("remove and clear take rules out at once", () => {
    const rules = new RuleBook();
    const rule = rules.add({ method: "*", action: DROP }, 0);
    rule.remove();
    assert.equal(rules.select("eth_chainId", [], "single", 0), undefined);
    rules.add({ method: "*", action: DROP }, 0);
    rules.clear();
    assert.equal(rules.select("eth_chainId", [], "single", 0), undefined);
  });

  it("the node errors carry geth's codes and words", () => {
    assert.deepEqual(indexingInProgress(), {
      kind: "error",
      code: -32000,
      message: "transaction indexing is in progress",
    });
    assert.deepEqual(methodNotFound("eth_feeHistory"), {
      kind: "error",
      code: -32601,
      message: "the method eth_feeHistory does not exist/is not available",
    });
  });
});
