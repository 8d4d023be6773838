/**
 * Read API benchmark: 1,000,000 assets (with metadata documents) bulk-inserted in PostgreSQL
 * with `generate_series`, then `GET /api/v1/assets?limit=50` and `GET /api/v1/assets/{id}` with
 * autocannon in a separate load process from 50 connections: max throughput, then a fixed
 * 1,000 req/s for p99. The same run measures the framework's ceiling (a constant JSON through
 * the same Express stack, `bench/ceiling-routes.ts`, also behind API-key auth) and prints each
 * read's ratio to it, beside the same read through chain calls (ownerOf + tokenURI via ethers
 * against anvil). Prints figures; asserts nothing. Target: list p99 < 25 ms at 1,000 req/s.
 *
 * Run: node_modules/.bin/node --import tsx bench/reads.ts  (env BENCH_ASSETS, BENCH_SECONDS)
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { JsonRpcProvider, Wallet } from "ethers";
import { AssetToken__factory } from "../typechain-types/factories/AssetToken__factory.js";
import { startTestStack } from "../test/support/stack.js";
import { seedReadModel } from "../test/relayer/reads/seed-read-model.js";
import { CEILING_AUTHENTICATED_PATH, CEILING_PATH, CEILING_ROUTES } from "./ceiling-routes.js";
import { FOREIGN_KEYS, mintDirect } from "../test/relayer/webhooks/chain-helpers.js";
import { runAsScript } from "./support/run-as-script.js";

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
const ASSETS = Number(process.env.BENCH_ASSETS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;
const RATE = 1000;

function line(label: string, rps: number, p50: number, p99: number, extra = "") {
  console.log(
    `${label.padEnd(44)} ${rps.toFixed(0).padStart(7)} req/s   p50 ${p50.toFixed(1).padStart(6)} ms   p99 ${p99.toFixed(1).padStart(6)} ms ${extra}`,
  );
}

interface CannonOptions {
  randomIdPath?: string | undefined;
  rate?: number;
  seconds?: number;
  headers?: Record<string, string>;
}

/** SQL statements the relayer's pool sent so far (set once the stack is up). */
let statementsSent: () => number = () => 0;

async function cannon(label: string, url: string, options: CannonOptions = {}) {
  const statementsBefore = statementsSent();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: options.seconds ?? SECONDS,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.rate === undefined ? {} : { overallRate: options.rate }),
    ...(options.randomIdPath === undefined
      ? {}
      : { randomIdPath: options.randomIdPath, maxId: ASSETS }),
  });
  line(
    label,
    result.requests.average,
    result.latency.p50,
    result.latency.p99,
    `(non-2xx ${result.non2xx}, errors ${result.errors}; SQL statements per request ${((statementsSent() - statementsBefore) / Math.max(1, result.requests.total)).toFixed(2)})`,
  );
  return result;
}

async function chainReads(
  provider: JsonRpcProvider,
  tokenAddress: string,
  tokenIds: number[],
  seconds: number,
) {
  const token = AssetToken__factory.connect(tokenAddress, provider);
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
  const stack = await startTestStack({
    logLevel: "warn",
    extraRoutes: CEILING_ROUTES,
    // Raised for the benchmark only (production default 60/min per key): the authenticated
    // ceiling sends thousands of requests a second from one key.
    config: { apiKeyRateLimitPerMinute: 100_000_000 },
  });
  statementsSent = () => stack.database.statements();
  try {
    const t0 = Date.now();
    await seedReadModel(stack.database.pool, ASSETS, { metadata: true });
    console.log(
      `seeded ${ASSETS.toLocaleString("en-US")} assets (with metadata documents) in ${Date.now() - t0} ms; ${SECONDS} s per run`,
    );
    const org = await stack.registerOrg({ plan: "enterprise" });
    const url = (path: string) => `${stack.baseUrl}${path}`;
    const reads: Array<{ label: string; path: string; randomIdPath?: string }> = [
      { label: "GET /api/v1/assets?limit=50", path: "/api/v1/assets?limit=50" },
      {
        label: "GET /api/v1/assets/{random id}",
        path: "/api/v1/assets/1",
        randomIdPath: "/api/v1/assets/",
      },
    ];
    await cannon("warm-up", url(reads[0]!.path), { seconds: 3 });
    await cannon("warm-up", url("/api/v1/assets/1"), {
      randomIdPath: "/api/v1/assets/",
      seconds: 3,
    });

    console.log(`-- max throughput, ${CONNECTIONS} connections`);
    const ceilingMax = await cannon(`GET ${CEILING_PATH} (constant JSON)`, url(CEILING_PATH));
    // The enterprise plan allows 10,000 requests a minute per org: past that the same auth and
    // counter round trips answer 429, which is what this line measures either way.
    await cannon(
      `GET ${CEILING_AUTHENTICATED_PATH} (API key + rate limit)`,
      url(CEILING_AUTHENTICATED_PATH),
      { headers: { "x-api-key": org.apiKey } },
    );
    const readMax: AutocannonResult[] = [];
    for (const read of reads)
      readMax.push(await cannon(read.label, url(read.path), { randomIdPath: read.randomIdPath }));

    // autocannon paces each connection on its own timer, all started together: at a fixed rate
    // the 50 connections fire in bursts of 50 requests every 50 ms.
    console.log(
      `-- fixed ${RATE.toLocaleString("en-US")} req/s, ${CONNECTIONS} connections (target list p99 < 25 ms)`,
    );
    const ceilingFixed = await cannon(`GET ${CEILING_PATH} @${RATE}/s`, url(CEILING_PATH), {
      rate: RATE,
    });
    const readFixed: AutocannonResult[] = [];
    for (const read of reads)
      readFixed.push(
        await cannon(`${read.label} @${RATE}/s`, url(read.path), {
          rate: RATE,
          randomIdPath: read.randomIdPath,
        }),
      );

    console.log("-- each read against the constant-JSON ceiling (same Express stack)");
    reads.forEach((read, i) => {
      const max = readMax[i]!;
      const fixed = readFixed[i]!;
      console.log(
        `${read.label.padEnd(44)} throughput ${(max.requests.average / ceilingMax.requests.average).toFixed(2)}× the ceiling; ` +
          `p99 at ${RATE}/s ${fixed.latency.p99} ms vs ${ceilingFixed.latency.p99} ms (${(fixed.latency.p99 / Math.max(1, ceilingFixed.latency.p99)).toFixed(1)}×)`,
      );
    });
    const byId = readMax[1]!;

    console.log("-- the same read through the chain node");
    const provider = new JsonRpcProvider(stack.rpcUrl, 1236, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    const minter = new Wallet(FOREIGN_KEYS[0], provider);
    const ids: number[] = [];
    const token = AssetToken__factory.connect(stack.ctx.contracts.assetToken, provider);
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

runAsScript(import.meta.url, runReadsBench);
