/**
 * Read API benchmark: 100,000 assets bulk-inserted in PostgreSQL, then `GET /api/v1/assets?limit=50`
 * and `GET /api/v1/assets/{id}` with autocannon (max throughput, then a fixed 1,000 req/s run for
 * p99) in a separate load process, beside the same reads through chain calls (ownerOf + tokenURI via ethers against anvil).
 * Prints figures; asserts nothing. Target: p99 < 50 ms at 1,000 req/s.
 *
 * Run: node_modules/.bin/node --import tsx bench/reads.ts  (env BENCH_ASSETS, BENCH_SECONDS)
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Contract, JsonRpcProvider, Wallet } from "ethers";
import { startTestStack } from "../test/support/stack.js";
import { seedReadModel } from "../test/relayer/reads/seed-read-model.js";
import { FOREIGN_KEYS, mintDirect, TOKEN_ABI } from "../test/relayer/webhooks/chain-helpers.js";

interface Histogram {
  average: number;
  p50: number;
  p99: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram & { max: number };
  non2xx: number;
  errors: number;
}

const LOAD_CHILD = fileURLToPath(new URL("./load-child.ts", import.meta.url));

/** Runs autocannon in its own process (bench/load-child.ts) so it does not share our event loop. */
async function autocannon(options: Record<string, unknown>): Promise<AutocannonResult> {
  const { stdout } = await execFileAsync(
    process.execPath,
    ["--import", "tsx", LOAD_CHILD, JSON.stringify(options)],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const last = stdout.trim().split("\n").at(-1) ?? "{}";
  return JSON.parse(last) as AutocannonResult;
}

const execFileAsync = promisify(execFile);
const ASSETS = Number(process.env.BENCH_ASSETS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

function line(label: string, rps: number, p50: number, p99: number, extra = "") {
  console.log(
    `${label.padEnd(44)} ${rps.toFixed(0).padStart(7)} req/s   p50 ${p50.toFixed(1).padStart(6)} ms   p99 ${p99.toFixed(1).padStart(6)} ms ${extra}`,
  );
}

async function cannon(
  label: string,
  url: string,
  randomIdPath: string | undefined,
  rate?: number,
  connections = 32,
) {
  const result = await autocannon({
    url,
    connections,
    duration: SECONDS,
    ...(rate === undefined ? {} : { overallRate: rate }),
    ...(randomIdPath === undefined ? {} : { randomIdPath, maxId: ASSETS }),
  });
  line(
    label,
    result.requests.average,
    result.latency.p50,
    result.latency.p99,
    `(non-2xx ${result.non2xx}, errors ${result.errors})`,
  );
  return result;
}

async function chainReads(
  provider: JsonRpcProvider,
  tokenAddress: string,
  tokenIds: number[],
  seconds: number,
) {
  const token = new Contract(tokenAddress, TOKEN_ABI, provider);
  const latencies: number[] = [];
  const deadline = Date.now() + seconds * 1000;
  const worker = async () => {
    while (Date.now() < deadline) {
      const id = tokenIds[Math.floor(Math.random() * tokenIds.length)]!;
      const t0 = performance.now();
      await Promise.all([token.getFunction("ownerOf")(id), token.getFunction("tokenURI")(id)]);
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 16 }, worker));
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  const rps = latencies.length / ((Date.now() - t0) / 1000);
  line("chain: ownerOf+tokenURI (ethers, 16 workers)", rps, pct(0.5), pct(0.99));
  return { rps, p99: pct(0.99) };
}

/** Runs the read benchmark and prints its figures. */
export async function runReadsBench(): Promise<void> {
  const stack = await startTestStack({ logLevel: "warn" });
  try {
    const t0 = Date.now();
    await seedReadModel(stack.database.pool, ASSETS);
    console.log(`seeded ${ASSETS} assets in ${Date.now() - t0} ms; ${SECONDS} s per run`);
    await cannon("warm-up", `${stack.baseUrl}/api/v1/assets?limit=50`, undefined);
    console.log("-- max throughput (32 connections)");
    await cannon(
      "GET /api/v1/assets?limit=50",
      `${stack.baseUrl}/api/v1/assets?limit=50`,
      undefined,
    );
    const byId = await cannon(
      "GET /api/v1/assets/{random id}",
      `${stack.baseUrl}/api/v1/assets/1`,
      "/api/v1/assets/",
    );
    // autocannon paces each connection on its own timer, all started together: at a fixed rate
    // the connections fire in bursts of `connections` requests. Both burst sizes are shown.
    for (const connections of [10, 50]) {
      console.log(`-- fixed 1,000 req/s, ${connections} connections (target p99 < 50 ms)`);
      await cannon(
        "GET /api/v1/assets?limit=50 @1000/s",
        `${stack.baseUrl}/api/v1/assets?limit=50`,
        undefined,
        1000,
        connections,
      );
      await cannon(
        "GET /api/v1/assets/{random id} @1000/s",
        `${stack.baseUrl}/api/v1/assets/1`,
        "/api/v1/assets/",
        1000,
        connections,
      );
    }

    console.log("-- the same read through the chain node");
    const provider = new JsonRpcProvider(stack.rpcUrl, 1236, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    const minter = new Wallet(FOREIGN_KEYS[0], provider);
    const ids: number[] = [];
    const token = new Contract(stack.ctx.contracts.assetToken, TOKEN_ABI, provider);
    const firstId = Number(await token.getFunction("nextTokenId")());
    for (let i = 0; i < 20; i++) {
      await mintDirect(stack, minter, i + 1);
      ids.push(firstId + i);
    }
    const chain = await chainReads(provider, stack.ctx.contracts.assetToken, ids, SECONDS);
    provider.destroy();
    // The API answers with the whole record (metadata, listing, issuer); the chain path reads
    // only the owner and the token URI.
    console.log(
      `ratio, one asset by id: API / chain ${(byId.requests.average / chain.rps).toFixed(2)}× the throughput, p99 ${byId.latency.p99} ms vs ${chain.p99.toFixed(1)} ms`,
    );
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  runReadsBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
