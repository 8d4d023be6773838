/**
 * Webhook latency benchmark: anvil with 1 s blocks, the indexer (250 ms head polling) and the
 * delivery workers, a local receiver. For each mint, the time from the block holding the event
 * to the signed delivery's arrival at the receiver, with the block's moment taken three ways: when
 * a 10 ms `eth_blockNumber` poller in this process first saw it (the real latency), its header
 * timestamp (whole seconds, so it adds 0-1 s), and when the transaction's receipt reached the
 * sender. Prints p50/p95; asserts nothing.
 * Target: p50 < block interval + 0.5 s.
 *
 * Run: node_modules/.bin/node --import tsx bench/webhooks.ts  (env BENCH_EVENTS, default 20)
 */
import { startIndexer } from "../relayer/src/indexer/index.js";
import { startWebhookWorkers } from "../relayer/src/webhooks/index.js";
import { startTestStack } from "../test/support/stack.js";
import { mintDirect, orgSigner, testProvider } from "../test/relayer/webhooks/chain-helpers.js";
import { startReceiver, verifyDelivery } from "../test/relayer/webhooks/receiver.js";
import { runAsScript } from "./support/run-as-script.js";
import { percentile } from "./support/percentile.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20);

/** Runs the webhook latency benchmark and prints its figures. */
export async function runWebhooksBench(): Promise<void> {
  const stack = await startTestStack({ blockTime: 1, logLevel: "warn" });
  const receiver = await startReceiver();
  const provider = testProvider(stack.rpcUrl);
  const indexer = await startIndexer(stack.ctx, { pollIntervalMs: 250 });
  const workers = await startWebhookWorkers(stack.ctx);
  try {
    const org = await stack.registerOrg();
    const hook = await org.api<{ secret: string }>("POST", "/api/enterprise/webhooks", {
      body: { url: receiver.url("/bench"), events: ["asset.issued"] },
    });
    const secret = hook.body.secret;
    const wallet = await orgSigner(stack, org.orgId, provider);
    // When each block number was first visible on the node (10 ms polling).
    const seenAt = new Map<number, number>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const head = Number(BigInt((await provider.send("eth_blockNumber", [])) as string));
        if (!seenAt.has(head)) seenAt.set(head, Date.now());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const fromSeen: number[] = [];
    const fromBlock: number[] = [];
    const fromReceipt: number[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const { blockNumber, txHash } = await mintDirect(stack, wallet, (i % 250) + 1);
      const receiptAt = Date.now();
      const block = await provider.getBlock(blockNumber);
      await receiver.waitFor((all) => all.some((d) => d.json.txHash === txHash), 30_000);
      const delivery = receiver.received.find((d) => d.json.txHash === txHash)!;
      verifyDelivery(delivery, secret);
      const seen = seenAt.get(blockNumber);
      if (seen !== undefined) fromSeen.push(delivery.receivedAt - seen);
      fromBlock.push(delivery.receivedAt - block!.timestamp * 1000);
      fromReceipt.push(delivery.receivedAt - receiptAt);
    }
    watching = false;
    await watcher;
    fromSeen.sort((a, b) => a - b);
    fromBlock.sort((a, b) => a - b);
    fromReceipt.sort((a, b) => a - b);
    const avgBlockTime = (await stack.api<{ averageBlockTime: number }>("GET", "/api/v1/status"))
      .body.averageBlockTime;
    console.log(
      `${EVENTS} asset.issued deliveries, block interval ${avgBlockTime} s, indexer poll 250 ms, confirmations 1`,
    );
    console.log(
      `block first seen -> delivery: p50 ${percentile(fromSeen, 50)} ms   p95 ${percentile(fromSeen, 95)} ms   max ${fromSeen.at(-1)} ms   (${fromSeen.length} of ${EVENTS} blocks seen)`,
    );
    console.log(
      `block timestamp -> delivery:  p50 ${percentile(fromBlock, 50)} ms   p95 ${percentile(fromBlock, 95)} ms   max ${fromBlock.at(-1)} ms`,
    );
    console.log(
      `receipt at sender -> delivery: p50 ${percentile(fromReceipt, 50)} ms   p95 ${percentile(fromReceipt, 95)} ms   max ${fromReceipt.at(-1)} ms`,
    );
    console.log(
      `target: p50 (from block) < ${(avgBlockTime * 1000 + 500).toFixed(0)} ms; the spec's indexer polls every 3,000 ms`,
    );
  } finally {
    await workers.stop();
    await indexer.stop();
    provider.destroy();
    await receiver.close();
    await stack.stop();
  }
}

runAsScript(import.meta.url, runWebhooksBench);
