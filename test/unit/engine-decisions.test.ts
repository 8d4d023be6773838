import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  attemptToRebroadcast,
  blockStuckReason,
  blockWhereNonceWasUsed,
  broadcastVerdict,
  confirmationVerdict,
  isStuck,
  outbid,
  pickRound,
  pricedOut,
  rebroadcastDue,
  receiptVerdict,
  takerVerdict,
} from "../../relayer/src/engine/decisions.js";
import { capFees, feeCapOf, nextFees } from "../../relayer/src/engine/fee-policy.js";
import { RpcAnswerLostError, RpcResponseError } from "../../relayer/src/chain/rpc/rpc-errors.js";
import type { TxAttempt } from "../../relayer/src/engine/tx-lifecycle.js";
import { RpcUnavailableError } from "../../relayer/src/errors.js";
import { txRow } from "./tx-row-fixture.ts";

/** A transaction row with only what the decisions read. */
const row = txRow;

const attempt = (hash: string, extra: Partial<TxAttempt> = {}): TxAttempt => ({
  hash,
  maxFeePerGas: "2",
  maxPriorityFeePerGas: "1",
  sentAt: new Date(0).toISOString(),
  ...extra,
});

/** A sent row whose one attempt has fee cap `fee`. */
const sentAtFee = (fee: string, extra: Partial<TxAttempt> = {}) =>
  row({ state: "sent", nonce: 1, attempts: [attempt("0x1", { maxFeePerGas: fee, ...extra })] });

/** A sent row whose newest attempt, priced lower, was refused: only the first is live. */
const refusedLow = () =>
  row({
    state: "sent",
    nonce: 1,
    attempts: [
      attempt("0x1", { maxFeePerGas: "20" }),
      attempt("0x2", { maxFeePerGas: "5", refused: "x" }),
    ],
  });

describe("engine decisions: which rows a round takes", () => {
  it("takes queued writes in order while the organization has free in-flight slots", () => {
    const sent = [1, 2].map((i) => row({ state: "sent", nonce: i }));
    const queued = [1, 2, 3].map(() => row());
    const picked = pickRound([...sent, ...queued], 4);
    assert.deepEqual(
      picked.map((r) => r.id),
      queued.slice(0, 2).map((r) => r.id),
    );
  });

  it("a mined row holds no slot (it is no longer in a pool)", () => {
    const mined = row({ state: "mined", nonce: 1 });
    const queued = row();
    assert.deepEqual(pickRound([mined, queued], 1), [queued]);
  });

  it("a group's queued items go out together, as one slot, and a group in flight sends the rest", () => {
    const group = row({ toAddress: null, data: null, kind: "batch-issue" });
    const items = [0, 1, 2].map((i) => row({ parentId: group.id, itemIndex: i }));
    const after = row();
    assert.deepEqual(
      pickRound([group, ...items, after], 1).map((r) => r.id),
      items.map((r) => r.id),
    );
    const inFlight = [
      { ...group, state: "sent" as const },
      { ...items[0]!, state: "sent" as const, nonce: 4 },
      items[1]!,
    ];
    assert.deepEqual(pickRound(inFlight, 1), [items[1]]);
  });
});

describe("engine decisions: what a broadcast's answer means", () => {
  const cases: Array<[string, unknown, string]> = [
    ["a hash", "0xabc", "accepted"],
    ["already known", new RpcResponseError("m", -32000, "already known", undefined), "accepted"],
    ["a lost batch answer", new RpcAnswerLostError("eth_sendRawTransaction"), "maybe-in-pool"],
    ["a timeout", new RpcUnavailableError(), "maybe-in-pool"],
    [
      "nonce too low",
      new RpcResponseError("m", -32003, "nonce too low", undefined),
      "nonce-too-low",
    ],
    [
      "an underpriced replacement",
      new RpcResponseError("m", -32000, "replacement transaction underpriced", undefined),
      "underpriced",
    ],
    [
      "insufficient funds",
      new RpcResponseError("m", -32003, "insufficient funds for gas * price + value", undefined),
      "refused",
    ],
  ];
  for (const [what, answer, kind] of cases)
    it(`${what} → ${kind}`, () => assert.equal(broadcastVerdict(answer).kind, kind));
});

describe("engine decisions: the evidence about a consumed nonce", () => {
  const receipt = {
    transactionHash: "0x1",
    blockHash: "0xb",
    blockNumber: "0x5",
    status: "0x1",
    gasUsed: "0x1",
    logs: [],
  };

  it("a receipt of any attempt settles the row", () => {
    assert.equal(receiptVerdict([null, receipt]).kind, "mined");
  });

  it("an error or a missing answer never lets the write move on", () => {
    const indexing = new RpcResponseError(
      "m",
      -32000,
      "transaction indexing is in progress",
      undefined,
    );
    assert.equal(receiptVerdict([null, indexing]).kind, "look-again");
    assert.equal(receiptVerdict([undefined]).kind, "look-again");
    assert.equal(receiptVerdict([new RpcAnswerLostError("m")]).kind, "look-again");
    assert.equal(receiptVerdict([]).kind, "look-again");
  });

  it("definite nulls only lead to the block that used the nonce", () => {
    assert.equal(receiptVerdict([null, null]).kind, "no-receipt");
  });

  it("the block's transaction from the wallet at that nonce decides: ours, or taken", () => {
    const block = {
      transactions: [
        { hash: "0xother", from: "0xBBBB", nonce: "0x7" },
        { hash: "0xTAKER", from: "0xAAAA", nonce: "0x7" },
      ],
    };
    assert.deepEqual(takerVerdict(block, "0xaaaa", 7, ["0x1", "0x2"]), {
      kind: "taken",
      by: "0xTAKER",
    });
    assert.deepEqual(takerVerdict(block, "0xaaaa", 7, ["0xtaker"]), {
      kind: "ours",
      hash: "0xTAKER",
    });
  });

  it("no block, a block without such a transaction, or hashes only: look again", () => {
    assert.equal(takerVerdict(null, "0xaaaa", 7, []).kind, "look-again");
    assert.equal(takerVerdict({ transactions: [] }, "0xaaaa", 7, []).kind, "look-again");
    assert.equal(takerVerdict({ transactions: ["0xhash"] }, "0xaaaa", 7, []).kind, "look-again");
  });

  it("finds the first block whose count passed the nonce, and fails with the node", async () => {
    const counts = [0, 0, 1, 1, 3, 3, 4, 6, 6];
    const countAt = (b: number) => Promise.resolve(counts[b]!);
    assert.equal(await blockWhereNonceWasUsed(2, 0, 8, countAt), 4);
    assert.equal(await blockWhereNonceWasUsed(0, 0, 8, countAt), 2);
    assert.equal(await blockWhereNonceWasUsed(6, 0, 8, countAt), undefined);
    await assert.rejects(
      blockWhereNonceWasUsed(2, 0, 8, () => Promise.reject(new Error("header not found"))),
      /header not found/,
    );
  });

  it("asks only for recent states when the nonce was used recently (a node that keeps 16)", async () => {
    // 10,000 blocks; the nonce 40 was used at block 9,995; states older than 16 blocks are gone.
    const head = 10_000;
    const asked: number[] = [];
    const countAt = (b: number) => {
      asked.push(b);
      if (b < head - 16) return Promise.reject(new Error("state pruned"));
      return Promise.resolve(b >= 9_995 ? 41 : 40);
    };
    assert.equal(await blockWhereNonceWasUsed(40, 0, head, countAt), 9_995);
    assert.ok(Math.min(...asked) >= head - 16, `asked ${asked.join(", ")}`);
    // Every answer of the bisection agrees with a linear scan, whatever the block and range.
    const counts = [0, 0, 1, 1, 3, 3, 4, 6, 6, 7, 9, 9, 9, 12];
    for (let nonce = 0; nonce < 12; nonce++)
      for (let low = 0; low < counts.length; low++) {
        const first = counts.findIndex((c, b) => b >= low && c > nonce);
        const found = await blockWhereNonceWasUsed(nonce, low, counts.length - 1, (b) =>
          Promise.resolve(counts[b]!),
        );
        assert.equal(found, first, `nonce ${nonce} from ${low}`);
      }
  });
});

describe("engine decisions: confirmations and re-broadcasts", () => {
  const receipt = { blockNumber: 10, blockHash: "0xAB" };
  it("waits for its confirmations, then checks the block is still the same", () => {
    assert.equal(confirmationVerdict(receipt, 11, 2, "0xab"), "wait");
    assert.equal(confirmationVerdict(receipt, 12, 2, "0xab"), "confirm");
    assert.equal(confirmationVerdict(receipt, 12, 2, "0xcd"), "reorged");
    assert.equal(confirmationVerdict(receipt, 12, 2, null), "wait");
    assert.equal(confirmationVerdict(receipt, 10, 0, "0xab"), "confirm");
  });

  it("sends again the attempt a reorg dropped, else the newest that may be mined", () => {
    const a = attempt("0x1", { reorgedFrom: 9 });
    const b = attempt("0x2");
    const c = attempt("0x3", { refused: "underpriced" });
    assert.equal(attemptToRebroadcast([a, b, c])?.hash, "0x1");
    assert.equal(attemptToRebroadcast([b, c])?.hash, "0x2");
    assert.equal(attemptToRebroadcast([c])?.hash, "0x3");
  });

  it("re-broadcasts what this process never sent, what a reorg reopened, and what went quiet", () => {
    assert.equal(rebroadcastDue(undefined, undefined, 100, 5_000), true);
    assert.equal(rebroadcastDue(100, 200, 300, 5_000), true);
    assert.equal(rebroadcastDue(100, undefined, 300, 5_000), false);
    assert.equal(rebroadcastDue(100, undefined, 5_100, 5_000), true);
  });

  it("a reopened row is not re-priced until it has been quiet since its reopening", () => {
    const now = Date.now();
    const old = attempt("0x1", { sentAt: new Date(now - 60_000).toISOString() });
    assert.equal(isStuck(row({ state: "sent", nonce: 1, attempts: [old] }), now, 15_000), true);
    const reopened = row({
      state: "sent",
      nonce: 1,
      attempts: [old],
      reopenedAt: new Date(now - 1_000),
    });
    assert.equal(isStuck(reopened, now, 15_000), false);
    assert.equal(isStuck(row({ state: "queued" }), now, 15_000), false);
  });

  it("a sent row is priced out when the next base fee passes its last live attempt, unless it is at its cap", () => {
    assert.equal(pricedOut(sentAtFee("10"), 11n, 100n), true);
    assert.equal(
      pricedOut(sentAtFee("10"), 10n, 100n),
      false,
      "a cap equal to the base fee is minable",
    );
    assert.equal(pricedOut(sentAtFee("10"), 11n, 10n), false, "at its cap: the timer re-sends it");
    assert.equal(pricedOut(sentAtFee("10"), undefined, 100n), false, "no base fee read yet");
    assert.equal(pricedOut(sentAtFee("0"), 0n, 100n), false, "a chain without a base fee");
    assert.equal(pricedOut(row({ state: "queued" }), 11n, 100n), false);
    // Only live attempts count: a refused one, priced lower, does not make the row priced out.
    assert.equal(pricedOut(refusedLow(), 11n, 100n), false);
  });

  it("a sent row is outbid when the quote the newer writes go out at is above its fee, below its cap", () => {
    const quote = { type: 2 as const, maxFeePerGas: 12n, maxPriorityFeePerGas: 1n };
    assert.equal(outbid(sentAtFee("10"), quote, 100n), true);
    assert.equal(outbid(sentAtFee("12"), quote, 100n), false, "priced at the quote itself");
    assert.equal(outbid(sentAtFee("13"), quote, 100n), false, "priced above it (the market fell)");
    assert.equal(outbid(sentAtFee("10"), quote, 10n), false, "at its cap: nothing higher to send");
    assert.equal(outbid(sentAtFee("10"), undefined, 100n), false, "no quote read");
    assert.equal(outbid(sentAtFee("10", { type: 0 }), quote, 100n), false, "another fee model");
    assert.equal(outbid(row({ state: "queued" }), quote, 100n), false);
    assert.equal(outbid(refusedLow(), quote, 100n), false, "only live attempts count");
  });

  it("a write left out of STUCK_AFTER_BLOCKS blocks is not-mined when its nonce is next, nonce-gap when a lower one holds it", () => {
    // nonce, the chain's count at latest, head when first seen out, head now, blocks allowed
    assert.equal(blockStuckReason(5, 5, 100, 119, 20), undefined, "19 blocks: not yet");
    assert.equal(blockStuckReason(5, 5, 100, 120, 20), "not-mined");
    assert.equal(blockStuckReason(7, 5, 100, 120, 20), "nonce-gap");
    assert.equal(blockStuckReason(4, 5, 100, 200, 20), undefined, "its nonce is used: settling");
    assert.equal(blockStuckReason(5, 5, 100, 10_000, 0), undefined, "0 turns the rule off");
  });
});

describe("fee policy", () => {
  it("caps a row at the lower of its reserved cap and the operator ceiling", () => {
    assert.equal(feeCapOf({ feeCap: "100" }, 50n), 50n);
    assert.equal(feeCapOf({ feeCap: "100" }, undefined), 100n);
    assert.equal(feeCapOf({ feeCap: null }, undefined), 2n ** 255n);
  });

  it("lowers a quote to the cap, the tip never above the fee, keeping the fee model", () => {
    assert.deepEqual(capFees({ type: 2, maxFeePerGas: 90n, maxPriorityFeePerGas: 80n }, 50n), {
      type: 2,
      maxFeePerGas: 50n,
      maxPriorityFeePerGas: 50n,
    });
    assert.equal(capFees({ type: 0, maxFeePerGas: 9n, maxPriorityFeePerGas: 9n }, 50n).type, 0);
  });

  it("bumps a stuck attempt by at least 12.5% in both models, or stops at the cap", () => {
    for (const type of [0, 2] as const) {
      const prev = { type, maxFeePerGas: 1_000n, maxPriorityFeePerGas: type === 0 ? 1_000n : 100n };
      const next = nextFees(prev, { type, maxFeePerGas: 10n, maxPriorityFeePerGas: 10n }, 10_000n);
      assert.equal(next.kind, "bump");
      if (next.kind !== "bump") continue;
      assert.equal(next.fees.type, type);
      assert.ok(next.fees.maxFeePerGas * 1000n >= prev.maxFeePerGas * 1125n);
      assert.ok(next.fees.maxPriorityFeePerGas * 1000n >= prev.maxPriorityFeePerGas * 1125n);
    }
    const atCap = nextFees(
      { maxFeePerGas: 1_000n, maxPriorityFeePerGas: 1n },
      { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
      1_100n,
    );
    assert.equal(atCap.kind, "at-cap");
  });
});
