/**
 * Writes benchmark: anvil with 1 s blocks + a real PostgreSQL + the relayer app with its
 * engine, in one process. Prints, without asserting:
 * - issue-asset latency p50/p95 (target p50 ≤ 1.5 s = 1.5 block intervals),
 * - batch-issue of 50, end to end (target ≤ 3 s), beside a naive one-by-one baseline,
 * - issuances/s with 10 concurrent writers of one org and with 5 orgs × 10 writers,
 * - what the chain alone accepts from a raw ethers script (consecutive nonces, one wallet), and
 *   the ratios.
 *
 * Run: npm run bench -- writes  (env BENCH_SECONDS: duration of the throughput phases, default 10)
 */
import { parseEther, Wallet, ZeroHash, type Provider } from "ethers";
import { AssetToken__factory } from "../typechain-types/factories/AssetToken__factory.js";
import { startTestStack, type TestOrg } from "../test/support/stack.js";
import { runAsScript } from "./support/run-as-script.js";
import { percentile } from "./support/percentile.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BODY = { assetType: "Bond", name: "Bench", description: "benchmark asset" };

async function issueOnce(org: TestOrg): Promise<number> {
  const t0 = performance.now();
  const res = await org.api("POST", "/api/v1/write/issue-asset", { body: BODY });
  if (res.status !== 200) throw new Error(`issue-asset ${res.status}: ${res.text}`);
  return performance.now() - t0;
}

/** Runs `writers` loops issuing for `seconds`; returns issuances per second. */
async function throughput(
  orgs: TestOrg[],
  writersPerOrg: number,
  seconds: number,
): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(
    orgs.flatMap((org) =>
      Array.from({ length: writersPerOrg }, async () => {
        while (performance.now() < until) {
          await issueOnce(org);
          done++;
        }
      }),
    ),
  );
  return done / ((performance.now() - t0) / 1000);
}

/** Raw ethers: one funded wallet, consecutive nonces, no database; mints/s the chain accepts. */
async function rawChainRate(
  rpcUrl: string,
  provider: Provider,
  funder: Wallet,
  tokenAddress: string,
  count: number,
): Promise<number> {
  const wallet = Wallet.createRandom().connect(provider);
  await (
    await funder.sendTransaction({ to: wallet.address, value: parseEther(String(count * 0.2 + 1)) })
  ).wait();
  void rpcUrl;
  const token = AssetToken__factory.connect(tokenAddress, wallet);
  const cid = { digest: "0x" + "11".repeat(32), version: 1, codec: 0x0200, hashCode: 0x12 };
  const nonce = await provider.getTransactionCount(wallet.address, "pending");
  const fee = await provider.getFeeData();
  const gasLimit = await token.mint.estimateGas("Bond", cid, ZeroHash, {
    value: parseEther("0.1"),
  });
  const t0 = performance.now();
  const sent: import("ethers").ContractTransactionResponse[] = [];
  for (let i = 0; i < count; i++) {
    sent.push(
      await token.mint("Bond", cid, ZeroHash, {
        value: parseEther("0.1"),
        nonce: nonce + i,
        gasLimit: (gasLimit * 125n) / 100n,
        maxFeePerGas: fee.maxFeePerGas! * 2n,
        maxPriorityFeePerGas: fee.maxPriorityFeePerGas!,
      }),
    );
  }
  await Promise.all(sent.map((tx) => tx.wait()));
  return count / ((performance.now() - t0) / 1000);
}

export async function runWritesBench(): Promise<void> {
  console.log("Starting anvil (1 s blocks), PostgreSQL, contracts and the relayer...");
  const stack = await startTestStack({ blockTime: 1, logLevel: "warn" });
  await stack.ctx.engine.start();
  try {
    const orgs = await Promise.all(Array.from({ length: 5 }, () => stack.registerOrg()));
    let nonce = await stack.ctx.provider.getTransactionCount(stack.ctx.operator.address, "pending");
    const fundings = [];
    for (const org of orgs)
      fundings.push(
        await stack.ctx.operator.sendTransaction({
          to: org.walletAddress,
          value: parseEther("500"),
          nonce: nonce++,
        }),
      );
    await Promise.all(fundings.map((tx) => tx.wait()));
    const [a] = orgs as [TestOrg];

    await issueOnce(a); // warm-up (pg-boss, caches)
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) latencies.push(await issueOnce(a));
    console.log(
      `\nissue-asset latency (20 sequential, 1 s blocks): p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms (target p50 ≤ 1500 ms)`,
    );

    const t0 = performance.now();
    const batch = await a.api("POST", "/api/v1/write/batch-issue", {
      body: { assets: Array.from({ length: 50 }, () => BODY) },
    });
    const batchMs = performance.now() - t0;
    if (batch.status !== 200 || (batch.body as { issued?: number }).issued !== 50)
      throw new Error(`batch-issue: ${batch.status} ${batch.text.slice(0, 300)}`);
    const naiveN = 10;
    const t1 = performance.now();
    for (let i = 0; i < naiveN; i++) await issueOnce(a);
    const naivePer = (performance.now() - t1) / naiveN;
    console.log(
      `batch-issue of 50: ${batchMs.toFixed(0)} ms end to end (target ≤ 3000 ms); naive one-by-one: ${naivePer.toFixed(0)} ms per asset ` +
        `(${naiveN} measured) → ${((naivePer * 50) / 1000).toFixed(1)} s for 50; speed-up ×${((naivePer * 50) / batchMs).toFixed(1)}`,
    );

    const oneOrg = await throughput([a], 10, SECONDS);
    console.log(`10 concurrent writers, one org (${SECONDS} s): ${oneOrg.toFixed(1)} issuances/s`);
    const fiveOrgs = await throughput(orgs, 10, SECONDS);
    console.log(`5 orgs × 10 writers (${SECONDS} s): ${fiveOrgs.toFixed(1)} issuances/s`);

    const raw = await rawChainRate(
      stack.rpcUrl,
      stack.ctx.provider,
      stack.ctx.operator,
      stack.ctx.contracts.assetToken,
      100,
    );
    console.log(
      `raw ethers script, one wallet, 100 mints with consecutive nonces: ${raw.toFixed(1)} mints/s`,
    );
    console.log(
      `ratios: one org / raw = ${(oneOrg / raw).toFixed(2)}, 5 orgs / raw = ${(fiveOrgs / raw).toFixed(2)}`,
    );
  } finally {
    await stack.ctx.engine.stop();
    await stack.stop();
  }
}

runAsScript(import.meta.url, runWritesBench);
