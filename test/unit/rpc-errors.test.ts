import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { makeError } from "ethers";
import {
  classifyRpcFailure,
  isAlreadyKnown,
  isAnswerLost,
  isBatchRefusal,
  isInsufficientFunds,
  isMethodNotFound,
  isNonceTooLow,
  isRevert,
  isRetryable,
  isTxTypeUnsupported,
  isUnavailable,
  isUnderpriced,
  RpcAnswerLostError,
  RpcResponseError,
  withRpc,
} from "../../relayer/src/chain/rpc/rpc-errors.js";
import { RpcUnavailableError } from "../../relayer/src/errors.js";

/**
 * Error answers recorded from anvil 1.7 (`@foundry-rs/anvil`, chain 1236): each one provoked on
 * a live node; the live run of the same cases is test/relayer/chain/rpc-client.test.ts.
 */
const ANVIL = {
  alreadyKnown: { code: -32003, message: "transaction already imported" },
  underpriced: { code: -32003, message: "replacement transaction underpriced" },
  nonceTooLow: { code: -32003, message: "nonce too low" },
  insufficientFunds: { code: -32003, message: "Insufficient funds for gas * price + value" },
  belowBaseFee: { code: -32003, message: "max fee per gas less than block base fee" },
  customError: {
    code: 3,
    message: "execution reverted: custom error 0xdeadbeef",
    data: "0xdeadbeef",
  },
  emptyRevert: { code: 3, message: "execution reverted", data: "0x" },
} as const;

const fromNode = (answer: { code: number; message: string; data?: string }, method = "eth_call") =>
  new RpcResponseError(method, answer.code, answer.message, answer.data);

describe("node error predicates on anvil's answers", () => {
  type Answer = (typeof ANVIL)[keyof typeof ANVIL];
  const recognised: Array<{
    title: string;
    answers: Answer[];
    is: (error: unknown) => boolean;
    /** A predicate that must not also claim these answers. */
    isNot?: (error: unknown) => boolean;
  }> = [
    {
      title: "isAlreadyKnown recognises anvil's 'transaction already imported'",
      answers: [ANVIL.alreadyKnown],
      is: isAlreadyKnown,
      isNot: isNonceTooLow,
    },
    {
      title: "isUnderpriced recognises a replacement below the bump and a cap below the base fee",
      answers: [ANVIL.underpriced, ANVIL.belowBaseFee],
      is: isUnderpriced,
      isNot: isAlreadyKnown,
    },
    {
      title: "isNonceTooLow recognises 'nonce too low'",
      answers: [ANVIL.nonceTooLow],
      is: isNonceTooLow,
      isNot: isRevert,
    },
    {
      title: "isInsufficientFunds recognises anvil's capitalised 'Insufficient funds'",
      answers: [ANVIL.insufficientFunds],
      is: isInsufficientFunds,
    },
    {
      title: "isRevert recognises a custom error with data and an empty revert (code 3)",
      answers: [ANVIL.customError, ANVIL.emptyRevert],
      is: isRevert,
      isNot: isUnavailable,
    },
  ];
  for (const { title, answers, is, isNot } of recognised) {
    it(title, () => {
      for (const answer of answers) {
        assert.equal(is(fromNode(answer)), true, answer.message);
        if (isNot !== undefined) assert.equal(isNot(fromNode(answer)), false, answer.message);
      }
    });
  }
  it("revert data decides over the message (a reason string may say anything)", () => {
    const sneaky = new RpcResponseError("eth_call", 3, "execution reverted: nonce too low", "0x12");
    assert.equal(classifyRpcFailure(sneaky), "revert");
  });
  it("an unknown node answer is 'other' for every predicate", () => {
    const odd = fromNode({ code: -32601, message: "the method foo does not exist" });
    assert.equal(classifyRpcFailure(odd), "other");
    for (const predicate of [isUnavailable, isNonceTooLow, isUnderpriced, isRevert])
      assert.equal(predicate(odd), false);
  });
});

describe("node error predicates walk the cause chain", () => {
  it("finds the node's answer under wrappers (cause) and inside ethers errors (info.error)", () => {
    const wrapped = new Error("sending failed", { cause: fromNode(ANVIL.nonceTooLow) });
    assert.equal(isNonceTooLow(new Error("outer", { cause: wrapped })), true);
    const coalesced = makeError("could not coalesce error", "UNKNOWN_ERROR", {
      error: ANVIL.underpriced,
    });
    assert.equal(isUnderpriced(coalesced), true);
    const nested = makeError("replacement fee too low", "UNKNOWN_ERROR", {
      info: { error: ANVIL.alreadyKnown },
    });
    assert.equal(isAlreadyKnown(nested), true);
  });
  it("reads ethers' own codes for errors it built from a node answer", () => {
    assert.equal(isNonceTooLow(makeError("nonce has already been used", "NONCE_EXPIRED")), true);
    assert.equal(isInsufficientFunds(makeError("funds", "INSUFFICIENT_FUNDS")), true);
    assert.equal(isUnderpriced(makeError("fee", "REPLACEMENT_UNDERPRICED")), true);
    assert.equal(isRevert(makeError("reverted", "CALL_EXCEPTION")), true);
  });
  it("isUnavailable covers refused connections, fetch failures, timeouts and the client's own error", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:8545"), {
      code: "ECONNREFUSED",
    });
    assert.equal(isUnavailable(new TypeError("fetch failed", { cause: refused })), true);
    assert.equal(isUnavailable(new DOMException("The operation timed out.", "TimeoutError")), true);
    assert.equal(isUnavailable(new RpcUnavailableError()), true);
    assert.equal(isUnavailable(makeError("timeout", "TIMEOUT")), true);
    assert.equal(isUnavailable(new Error("Listing not active")), false);
  });
  it("a node saying 'not now' (geth still indexing, a block it lacks, a rate limit) is retryable, a refusal is not", () => {
    const answers: Array<[number, string, boolean]> = [
      [-32000, "transaction indexing is in progress", true],
      [-32000, "header not found", true],
      [-32005, "request limit reached", true],
      [-32000, "nonce too low", false],
      [-32601, "the method eth_feeHistory does not exist/is not available", false],
    ];
    for (const [code, message, retryable] of answers) {
      const error = new RpcResponseError("eth_getTransactionReceipt", code, message, undefined);
      assert.equal(error.retryable, retryable, message);
      assert.equal(isRetryable(error), retryable, message);
    }
    assert.equal(isRetryable(new RpcAnswerLostError("eth_sendRawTransaction")), true);
    assert.equal(isRetryable(new RpcUnavailableError()), true);
    // The same answers inside an ethers error (a provider call), as ethers coalesces them.
    for (const [code, message, retryable] of answers) {
      const coalesced = makeError("could not coalesce error", "UNKNOWN_ERROR", {
        error: { code, message },
      });
      assert.equal(isUnavailable(coalesced), retryable, message);
    }
  });
  it("stops on a cyclic cause chain", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    assert.equal(classifyRpcFailure(a), "other");
  });
});

describe("withRpc", () => {
  it("turns an unreachable node into RpcUnavailableError and passes other errors through", async () => {
    const refused = new TypeError("fetch failed", {
      cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    });
    await assert.rejects(
      withRpc(() => Promise.reject(refused)),
      RpcUnavailableError,
    );
    const revert = fromNode(ANVIL.customError);
    await assert.rejects(
      withRpc(() => Promise.reject(revert)),
      (error) => error === revert,
    );
  });
});

describe("dialect predicates: methods a node lacks, transaction types it refuses, lost answers", () => {
  it("isMethodNotFound recognises -32601 from anvil, geth and Besu, Besu's -32604 and Hardhat's node's -32004", () => {
    for (const answer of [
      { code: -32601, message: "Method not found" }, // anvil 1.7, Besu
      { code: -32601, message: "the method eth_getBlockReceipts does not exist/is not available" }, // geth
      { code: -32604, message: "Method not enabled" }, // Besu, namespace off
      { code: -32004, message: "Method eth_getBlockReceipts is not supported" }, // Hardhat 3 node (EDR)
      { code: -32000, message: "Unsupported method: eth_getBlockReceipts" }, // a gateway
    ])
      assert.equal(isMethodNotFound(fromNode(answer)), true, answer.message);
    assert.equal(isMethodNotFound(fromNode(ANVIL.customError)), false);
    assert.equal(isMethodNotFound(new RpcUnavailableError()), false);
    const viaEthers = makeError("could not coalesce error", "UNKNOWN_ERROR", {
      error: { code: -32601, message: "Method not found" },
    });
    assert.equal(isMethodNotFound(viaEthers), true);
  });
  it("isTxTypeUnsupported recognises anvil's refusal of a type-2 transaction before London, and geth's", () => {
    const anvilBerlin = {
      code: -32602,
      message:
        "EIP-1559 style fee params (maxFeePerGas or maxPriorityFeePerGas) received but they are not supported by the current hardfork.\n\nYou can use them by running anvil with '--hardfork london' or later.",
    };
    assert.equal(isTxTypeUnsupported(fromNode(anvilBerlin, "eth_sendRawTransaction")), true);
    assert.equal(
      isTxTypeUnsupported(fromNode({ code: -32000, message: "transaction type not supported" })),
      true,
    );
    assert.equal(isTxTypeUnsupported(fromNode(ANVIL.underpriced)), false);
  });
  it("isAnswerLost is true only for a batch entry the node left unanswered, which is retryable", () => {
    const lost = new RpcAnswerLostError("eth_sendRawTransaction");
    assert.equal(isAnswerLost(lost), true);
    assert.equal(isAnswerLost(new Error("wrapped", { cause: lost })), true);
    assert.ok(lost instanceof RpcResponseError);
    assert.equal(lost.code, -32603);
    // Never a refusal: the request may have been carried out, so ask again.
    assert.equal(classifyRpcFailure(lost), "unavailable");
    assert.equal(lost.retryable, true);
    assert.equal(isAnswerLost(fromNode({ code: -32603, message: "internal error" })), false);
  });
  it("isBatchRefusal reads -32600 and batch-size answers, not a request's own errors", () => {
    assert.equal(isBatchRefusal({ code: -32600, message: "batch too large" }), true); // geth
    assert.equal(
      isBatchRefusal({ code: -32005, message: "Number of requests exceeds max batch size" }),
      true,
    ); // Besu
    assert.equal(isBatchRefusal({ code: -32000, message: "batch limit 100 exceeded" }), true); // Erigon
    assert.equal(isBatchRefusal(ANVIL.nonceTooLow), false);
  });
});
