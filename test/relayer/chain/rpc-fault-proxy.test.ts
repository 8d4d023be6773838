import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { Transaction, Wallet } from "ethers";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import { eventually } from "../../support/eventually.js";
import {
  gatewayError,
  indexingInProgress,
  startRpcFaultProxy,
  type RpcFaultProxy,
} from "../../support/rpc-fault-proxy.js";

/** One JSON-RPC answer as it came over the wire. */
interface Answer {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** One JSON-RPC exchange with raw fetch (status and parsed body), so nothing retries or hides. */
async function post(
  url: string,
  body: unknown,
  timeoutMs = 5_000,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** The answer of a call sent alone. */
async function one(url: string, body: unknown): Promise<Answer> {
  return (await post(url, body)).body as Answer;
}

/** The answers of a batch. */
async function many(url: string, body: unknown[]): Promise<Answer[]> {
  const answer = (await post(url, body)).body;
  assert.ok(Array.isArray(answer), JSON.stringify(answer));
  return answer as Answer[];
}

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

describe("RPC fault proxy (in front of a real anvil, automine)", () => {
  let anvil: AnvilHandle;
  let proxy: RpcFaultProxy;
  let lagging: RpcFaultProxy;
  const wallet = new Wallet(ANVIL_DEV_PRIVATE_KEY);
  let nonce = 0;

  /** A signed 1-wei transfer with the next nonce of anvil's first account. */
  const signedTransfer = () =>
    wallet.signTransaction({
      chainId: 1236,
      nonce: nonce++,
      to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
    });
  const txOnNode = async (hash: string) =>
    (await one(anvil.rpcUrl, call("eth_getTransactionByHash", [hash]))).result;
  const quantity = (n: number) => `0x${n.toString(16)}`;
  const numberOf = (answer: Answer) => Number(BigInt(answer.result as string));

  before(async () => {
    anvil = await startAnvil({ port: await findFreePort(), blockTime: 0, reuseExisting: false });
    proxy = await startRpcFaultProxy({ target: anvil.rpcUrl });
    lagging = await startRpcFaultProxy({ target: anvil.rpcUrl, lagBlocks: 5 });
  });
  after(async () => {
    await proxy?.close();
    await lagging?.close();
    await anvil?.stop();
  });
  afterEach(() => {
    proxy.clearRules();
    proxy.allowBatches();
    proxy.resetCounts();
  });

  it("forwards calls and batches unchanged and counts them by method", async () => {
    assert.deepEqual(await one(proxy.url, call("eth_chainId")), {
      jsonrpc: "2.0",
      id: 1,
      result: "0x4d4",
    });
    const batch = await many(proxy.url, [
      call("eth_chainId", [], 1),
      call("eth_blockNumber", [], 2),
    ]);
    assert.deepEqual(
      batch.map((a) => a.id),
      [1, 2],
    );
    assert.deepEqual(proxy.counts(), {
      received: { eth_chainId: 2, eth_blockNumber: 1 },
      forwarded: { eth_chainId: 2, eth_blockNumber: 1 },
      batches: 1,
      batchesRefused: 0,
      peakHanging: 0,
    });
  });

  it("an error rule answers geth's error for its window, then the node answers again", async () => {
    const lookup = call("eth_getTransactionReceipt", ["0x" + "00".repeat(32)]);
    proxy.addRule({
      method: "eth_getTransactionReceipt",
      action: indexingInProgress(),
      forMs: 300,
    });
    assert.deepEqual((await one(proxy.url, lookup)).error, {
      code: -32000,
      message: "transaction indexing is in progress",
    });
    assert.equal(proxy.forwarded("eth_getTransactionReceipt"), 0);
    await new Promise((r) => setTimeout(r, 350));
    assert.deepEqual(await one(proxy.url, lookup), { jsonrpc: "2.0", id: 1, result: null });
  });

  it("forward-then-drop inside a batch: the node has the transaction, the batch answer omits it", async () => {
    proxy.addRule({ method: "eth_sendRawTransaction", action: { kind: "forward-then-drop" } });
    const raw = await signedTransfer();
    const answers = await many(proxy.url, [
      call("eth_sendRawTransaction", [raw], 1),
      call("eth_chainId", [], 2),
    ]);
    assert.deepEqual(
      answers.map((a) => a.id),
      [2],
    );
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), 1);
    assert.notEqual(await txOnNode(hashOf(raw)), null);
  });

  it("forward-then-drop of a call sent alone: closed socket, or no answer until the client gives up", async () => {
    proxy.addRule({
      method: "eth_sendRawTransaction",
      action: { kind: "forward-then-drop", alone: "close" },
      times: 1,
    });
    const closed = await signedTransfer();
    await assert.rejects(post(proxy.url, call("eth_sendRawTransaction", [closed])), /fetch failed/);
    assert.notEqual(await txOnNode(hashOf(closed)), null);

    proxy.addRule({
      method: "eth_sendRawTransaction",
      action: { kind: "forward-then-drop" },
      times: 1,
    });
    const hung = await signedTransfer();
    await assert.rejects(
      post(proxy.url, call("eth_sendRawTransaction", [hung]), 500),
      /TimeoutError|aborted/,
    );
    assert.notEqual(await txOnNode(hashOf(hung)), null);
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), 2);
  });

  it("drop never forwards: the node never sees the transaction", async () => {
    proxy.addRule({ method: "eth_sendRawTransaction", action: { kind: "drop" }, times: 1 });
    const raw = await signedTransfer();
    nonce--; // it never reached the node: the nonce is still free
    assert.deepEqual(await many(proxy.url, [call("eth_sendRawTransaction", [raw], 1)]), []);
    assert.equal(await txOnNode(hashOf(raw)), null);
    assert.equal(proxy.forwarded("eth_sendRawTransaction"), 0);
  });

  it("refuses batches like a gateway (HTTP 400 or a -32600 error object), or only those above a size", async () => {
    const refusal = {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "batch requests are not supported" },
    };
    proxy.refuseBatches();
    assert.deepEqual(await post(proxy.url, [call("eth_chainId")]), { status: 400, body: refusal });
    assert.equal((await post(proxy.url, call("eth_chainId"))).status, 200);

    proxy.refuseBatches({ above: 2, answer: "rpc-error" });
    const two = await many(proxy.url, [call("eth_chainId", [], 1), call("eth_chainId", [], 2)]);
    assert.equal(two.length, 2);
    const three = [1, 2, 3].map((id) => call("eth_chainId", [], id));
    assert.deepEqual(await post(proxy.url, three), { status: 200, body: refusal });
    assert.equal(proxy.counts().batchesRefused, 2);
  });

  it("an http rule answers the whole request with a gateway status every n-th call, nothing forwarded", async () => {
    proxy.addRule({ method: "eth_blockNumber", action: gatewayError(503), every: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await post(proxy.url, call("eth_blockNumber"))).status);
    assert.deepEqual(statuses, [200, 503, 200, 503]);
    assert.equal(proxy.forwarded("eth_blockNumber"), 2);
  });

  it("a lagging endpoint shows the chain 5 blocks behind: head, receipts, nonces, blocks", async () => {
    await one(anvil.rpcUrl, call("anvil_mine", ["0xa"]));
    const hash = (await one(anvil.rpcUrl, call("eth_sendRawTransaction", [await signedTransfer()])))
      .result as string;
    // Anvil may answer the send before its automined block is the head: settle on the receipt first.
    await eventually(
      async () => {
        assert.ok((await one(anvil.rpcUrl, call("eth_getTransactionReceipt", [hash]))).result);
      },
      10_000,
      20,
    );
    const head = numberOf(await one(anvil.rpcUrl, call("eth_blockNumber")));
    const address = wallet.address;

    assert.equal(numberOf(await one(lagging.url, call("eth_blockNumber"))), head - 5);
    assert.equal((await one(lagging.url, call("eth_getTransactionReceipt", [hash]))).result, null);
    const atView = (
      await one(anvil.rpcUrl, call("eth_getTransactionCount", [address, quantity(head - 5)]))
    ).result;
    const answers = await many(lagging.url, [
      call("eth_getTransactionCount", [address, "latest"], 1),
      call("eth_getTransactionCount", [address, "pending"], 2),
      call("eth_getBlockByNumber", [quantity(head), false], 3),
      call("eth_getBlockReceipts", [quantity(head)], 4),
    ]);
    assert.deepEqual(
      answers.map((a) => a.result),
      [atView, atView, null, null],
    );
    const latest = await one(lagging.url, call("eth_getBlockByNumber", ["latest", false]));
    assert.equal(Number(BigInt((latest.result as { number: string }).number)), head - 5);

    // Five blocks later the lagging endpoint sees it.
    await one(anvil.rpcUrl, call("anvil_mine", ["0x5"]));
    const receipt = await one(lagging.url, call("eth_getTransactionReceipt", [hash]));
    assert.equal((receipt.result as { transactionHash: string }).transactionHash, hash);
  });
});

function hashOf(raw: string): string {
  return Transaction.from(raw).hash!;
}
