import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readBatchReply, type RpcRequest } from "../../relayer/src/chain/rpc/rpc-client.js";

const requests: RpcRequest[] = [
  { jsonrpc: "2.0", id: 7, method: "eth_sendRawTransaction", params: ["0x01"] },
  { jsonrpc: "2.0", id: 8, method: "eth_sendRawTransaction", params: ["0x02"] },
  { jsonrpc: "2.0", id: 9, method: "eth_sendRawTransaction", params: ["0x03"] },
];
const ok = (id: number) => ({ jsonrpc: "2.0", id, result: `0x${id}` });

describe("readBatchReply: the answers to a batch, or a refusal of the batch itself", () => {
  it("an array answering every id is answers, in whatever order, errors included", () => {
    const body = [ok(9), { id: 7, error: { code: -32003, message: "nonce too low" } }, ok(8)];
    assert.deepEqual(readBatchReply(requests, 200, body), { kind: "answers", answers: body });
  });
  it("an array missing an id is answers: the missing one is lost, not refused", () => {
    const reply = readBatchReply(requests, 200, [ok(7), ok(9)]);
    assert.equal(reply.kind, "answers");
  });
  it("a request's own -32600 with its own id, in a full array, is an answer", () => {
    const body = [ok(7), { id: 8, error: { code: -32600, message: "invalid request" } }, ok(9)];
    assert.equal(readBatchReply(requests, 200, body).kind, "answers");
  });
  const refusals: Array<[string, number, unknown, string]> = [
    ["HTTP 400 with a text body", 400, undefined, "HTTP 400"],
    ["HTTP 413", 413, { message: "too large" }, "HTTP 413"],
    [
      "one JSON-RPC error object",
      200,
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch not supported" } },
      "batch not supported",
    ],
    [
      "geth's one-element array (-32600 'batch too large' with the first id)",
      200,
      [{ jsonrpc: "2.0", id: 7, error: { code: -32600, message: "batch too large" } }],
      "batch too large",
    ],
    [
      "Besu's size error with no id",
      200,
      [{ id: null, error: { code: -32005, message: "Number of requests exceeds max batch size" } }],
      "Number of requests exceeds max batch size",
    ],
    ["an empty array", 200, [], "an empty array to a batch"],
    ["one result object", 200, ok(7), "a single answer to a batch"],
  ];
  for (const [title, status, body, reason] of refusals) {
    it(`${title} refuses the batch`, () => {
      assert.deepEqual(readBatchReply(requests, status, body), { kind: "refused", reason });
    });
  }
});
