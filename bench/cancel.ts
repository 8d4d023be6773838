/**
 * Cancel and speed-up latency on 1 s blocks (issue 43's closing figures). One relayer with its
 * engine and indexer, anvil mining a block every second, PostgreSQL. Prints, without asserting:
 *
 * - cancel-to-final: a sent write left out of the blocks (the next base fee set to 3 times its
 *   fee cap, so it waits while its cancelling self-transfer, priced up to its reserved spend
 *   over 21,000 gas, can still be mined) is cancelled; the time from the cancel's answer to the
 *   write reading final (`cancelled`, or `confirmed` should the original win), and how each ended;
 * - speed-up-to-mined: a sent write left out of the blocks by a base-fee spike (4 times its fee
 *   cap) is sped up to 12 times its cap (three times the spike); the time from the speed-up's
 *   answer to the write reading `confirmed`.
 *
 * Run: npm run bench -- cancel  (env BENCH_CANCEL_ROUNDS: rounds of each, default 7)
 */
import { formatUnits, toQuantity } from "ethers";
import { assetBody, startWriteStack, type WriteStack } from "../test/relayer/writes/helpers.js";
import type { TestOrg } from "../test/support/stack.js";
import { percentile } from "./support/percentile.js";
import { runAsScript } from "./support/run-as-script.js";

const ROUNDS = Number(process.env.BENCH_CANCEL_ROUNDS ?? 7);

export async function runCancelBench(): Promise<void> {
  const stack = await startWriteStack({ blockTime: 1 });
  try {
    const org = await stack.registerOrg();
    await stack.setBalance(org.walletAddress, "100000");
    const line = (name: string, ms: number[]) =>
      `${name}: p50 ${(percentile(ms, 50) / 1000).toFixed(2)} s, p95 ${(percentile(ms, 95) / 1000).toFixed(2)} s, max ${(Math.max(...ms) / 1000).toFixed(2)} s (n=${ms.length})`;
    const cancels: number[] = [];
    const ends: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const id = await sentAndLeftOut(stack, org, 3n);
      const started = performance.now();
      const res = await org.api("POST", `/api/v1/transactions/${id}/cancel`);
      if (res.status !== 202) throw new Error(`cancel answered ${res.status}: ${res.text}`);
      ends.push(await final(org, id));
      cancels.push(performance.now() - started);
    }
    console.log(line("cancel-to-final (1 s blocks)", cancels));
    const tally = ends.reduce<Record<string, number>>(
      (t, e) => ({ ...t, [e]: (t[e] ?? 0) + 1 }),
      {},
    );
    console.log(`  ended: ${JSON.stringify(tally)}`);
    await stack.setBalance(org.walletAddress, "100000");
    const speedUps: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const id = await sentAndLeftOut(stack, org, 4n);
      // Three times the spiked base fee: room for the next block. (The default, the current
      // quote's cap, may still be the quote read before the spike: it is cached for a second.)
      const { rows } = await stack.ctx.database.pool.query<{ fee_cap: string }>(
        "SELECT fee_cap FROM transactions WHERE id = $1",
        [id],
      );
      const maxFeePerGasGwei = formatUnits(BigInt(rows[0]!.fee_cap) * 12n, "gwei");
      // A caller reacts to a write seen stuck, not within the second of the spike: the quote
      // the re-pricing starts from is read after it (it is cached for a second).
      await new Promise((r) => setTimeout(r, 1_100));
      const started = performance.now();
      const res = await org.api("POST", `/api/v1/transactions/${id}/speed-up`, {
        body: { maxFeePerGasGwei },
      });
      if (res.status !== 202) throw new Error(`speed-up answered ${res.status}: ${res.text}`);
      const end = await final(org, id);
      if (end !== "confirmed") throw new Error(`a sped-up write ended ${end}`);
      speedUps.push(performance.now() - started);
    }
    console.log(line("speed-up-to-mined after a base-fee spike (1 s blocks)", speedUps));
  } finally {
    await stack.stop();
  }
}

/**
 * Issues a write, waits until it is sent, then makes the next blocks too dear for it (their
 * base fee `times` its fee cap) and waits for one such block: the write is in the pool, left out.
 */
async function sentAndLeftOut(stack: WriteStack, org: TestOrg, times: bigint): Promise<string> {
  await stack.rpc("evm_setIntervalMining", [0]);
  try {
    // Back to calm fees first (each round's spike is relative to the write's cap).
    await stack.rpc("anvil_setNextBlockBaseFeePerGas", [toQuantity(10n ** 9n)]);
    await stack.rpc("evm_mine");
    // Seen by the relayer, and its cached quote (1 s) read after it.
    const calm = await stack.provider.getBlockNumber();
    while (stack.ctx.engine.blocks.head < calm) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 1_100));
    const res = await org.api<{ transactionId: string }>("POST", "/api/v1/write/issue-asset", {
      body: assetBody(),
      headers: { Prefer: "respond-async" },
    });
    if (res.status !== 202) throw new Error(`issue answered ${res.status}: ${res.text}`);
    const id = res.body.transactionId;
    for (;;) {
      const status = (await org.api<{ status: string }>("GET", `/api/v1/transactions/${id}`)).body;
      if (status.status === "sent") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const { rows } = await stack.ctx.database.pool.query<{ fee_cap: string }>(
      "SELECT fee_cap FROM transactions WHERE id = $1",
      [id],
    );
    await stack.rpc("anvil_setNextBlockBaseFeePerGas", [
      toQuantity(BigInt(rows[0]!.fee_cap) * times),
    ]);
    await stack.rpc("evm_mine");
    // The relayer prices from the head it has seen: wait until it has seen the dear block.
    const spiked = await stack.provider.getBlockNumber();
    while (stack.ctx.engine.blocks.head < spiked) await new Promise((r) => setTimeout(r, 20));
    return id;
  } finally {
    await stack.rpc("evm_setIntervalMining", [1]);
  }
}

/** Polls the write every 20 ms until it is final; its state. */
async function final(org: TestOrg, id: string): Promise<string> {
  for (;;) {
    const { status } = (await org.api<{ status: string }>("GET", `/api/v1/transactions/${id}`))
      .body;
    if (!["queued", "sent", "mined"].includes(status)) return status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

runAsScript(import.meta.url, runCancelBench);
