/**
 * Scale benchmark (`npm run bench -- scale`): how close the relayer gets to what the chain itself
 * accepts, with many organizations writing at once. One process tree: anvil (1 s blocks, 30M gas),
 * a fresh PostgreSQL database, and one real relayer process (`relayer/src/main.ts`, as `npm start`
 * runs it); this process generates the load. Prints, without asserting:
 * - the chain's own limit in the same run: mints from 100 pre-funded raw wallets, signed in
 *   advance, sent pipelined, counted per block;
 * - for 1, 10, 50 and 100 organizations × 10 writers: minted/s and latency p50/p95/p99,
 *   synchronous and `Prefer: respond-async`, and 50-item batches; each rate's ratio to the
 *   chain's limit, full blocks, PostgreSQL commits per issuance, relayer and PostgreSQL CPU;
 * - open arrivals: async requests at a fixed rate (multiples of the chain's limit) over the
 *   largest org count, sent on schedule over a pool of keep-alive connections, with the 202's
 *   p50/p99 counted from each request's scheduled instant and the 429s with their `Retry-After`;
 * - a check that minted tokens equal successful writes (no duplicate, no loss);
 * - a chart (SVG) of minted/s and p50 latency against the number of organizations.
 *
 * `API_KEY_RATE_LIMIT_PER_MINUTE` is raised for the bench only (the relayer's default would
 * refuse most of the load); the bench says so when it starts.
 *
 * Then the largest org count again, sync and async, with BENCH_PROCESSES (default 2) relayer
 * processes behind the bench's round-robin (each writer sticks to one process); CPU and
 * statements are summed over the processes.
 *
 * Then "split": the open arrivals, async and sync at the largest org count on an API-only process
 * (RELAYER_ROLE=api) with a worker process (RELAYER_ROLE=worker) running the engine and the
 * indexer; CPU summed over both, the event-loop delay of the API process.
 *
 * First, the plain client's phases (`bench/plain-client.ts`): Node's global `fetch` from one
 * process, as an integrator's script would, against the largest org count: open arrivals at 0.8×
 * after a quiet spell (`cold`: every organization's first writes), 1,000 async closed loops
 * (`flood`), 1,000 sync ones (`sync-flood`), and the open arrivals again after another quiet spell
 * (`quiet`: organizations that wrote before), with the p99 of every second of the window.
 *
 * Environment: BENCH_SECONDS (per phase, default 20), BENCH_ORGS (default "1,10,50,100"),
 * BENCH_OUT (chart and JSON folder, default `.data/bench`), BENCH_PHASES (default
 * "cold,flood,sync-flood,quiet,sync,async,arrivals,processes,batch,split,crash"), BENCH_IDLE_SECONDS
 * (the quiet spell before `cold`, default 60), BENCH_BASE_FEE (the chain's starting base fee in
 * wei; 0 fixes it at 0), BENCH_ARRIVALS (multiples of the chain's limit,
 * default "0.8,1,2": 0.8 is the async target's load, issue 25), BENCH_CONNECTIONS (the open arrivals' connection pool, default 128).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { JsonRpcProvider, parseEther, toBeHex, Wallet } from "ethers";
import { Agent, fetch } from "undici";
import * as vega from "vega";
import * as vegaLite from "vega-lite";
import { REPO_ROOT } from "../relayer/src/config.js";
import { AssetToken__factory } from "../typechain-types/index.js";
import {
  call,
  startCluster,
  type CallOptions,
  type Cluster,
  type ClusterOrg,
  type ClusterRelayer,
} from "../test/reliability/support/cluster.js";
import {
  closedLoops,
  openArrivals,
  plainPhase,
  report as reportPlain,
  type PlainPhase,
} from "./plain-client.js";
import { chainLimit } from "./support/chain-limit.js";
import { percentile } from "./support/percentile.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const ORG_COUNTS = (process.env.BENCH_ORGS ?? "1,10,50,100").split(",").map(Number);
const WRITERS = 10;
/** Relayer processes of the scale-out phases (BENCH_PROCESSES, default 2; 1 skips them). */
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 2);
const OUT = path.resolve(REPO_ROOT, process.env.BENCH_OUT ?? ".data/bench");
const BODY = { assetType: "Bond", name: "Scale", description: "scale benchmark asset" };
const RATE_LIMIT = "1000000";
/** Phases to run (BENCH_PHASES, comma-separated; default all). */
const PHASES = new Set(
  (
    process.env.BENCH_PHASES ??
    "cold,flood,sync-flood,quiet,sync,async,arrivals,processes,batch,split,crash"
  ).split(","),
);
/** The quiet spell before the plain client's cold burst (BENCH_IDLE_SECONDS, default 60). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
/**
 * The chain's starting base fee in wei (BENCH_BASE_FEE; default anvil's, 1 gwei, adjusted by
 * EIP-1559 after every block). 0 keeps it at 0 for good (anvil treats a zero base fee as fixed),
 * as on a private chain without a fee market: the phases then measure the relayer against the
 * chain's capacity, not against a base fee that a sustained backlog drives above the writes'
 * fee caps.
 */
const BASE_FEE = process.env.BENCH_BASE_FEE;
if (BASE_FEE !== undefined && !/^\d+$/.test(BASE_FEE))
  throw new Error(`BENCH_BASE_FEE must be a whole number of wei, not "${BASE_FEE}"`);

/** Connections the open-arrival load keeps to the relayer (BENCH_CONNECTIONS). */
const ARRIVAL_CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 128);
/** Open-arrival phases: offered rates as multiples of the chain's limit (BENCH_ARRIVALS). */
const ARRIVALS = (process.env.BENCH_ARRIVALS ?? "0.8,1,2").split(",").map(Number);

/** Ids of every write the relayer answered 200 or 202 (checked against the chain at the end). */
const answered = new Set<string>();

interface PhaseResult {
  name: string;
  orgs: number;
  mode: "sync" | "async" | "batch";
  ok: number;
  errors: Record<string, number>;
  seconds: number;
  mintedPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** For async: latency of the 202 itself. */
  acceptP50?: number;
  acceptP99?: number;
  /** Open arrivals: the rate offered (requests/s), and the 429s' p99 and `Retry-After` seen. */
  offered?: number;
  refusedP99?: number;
  retryAfter?: string;
  /**
   * The relayer's own p99 for the answer (202 async, 200 sync), from its request histogram: the
   * upper bound of the bucket that holds it (0.1 s, 0.25 s, 0.5 s, 1 s...).
   */
  serverP99?: number;
  fullBlocks: number;
  blocks: number;
  /** The base fee over the phase's blocks, in gwei: at the first, the highest, at the last. */
  baseFeeGwei: { start: number; max: number; end: number };
  /**
   * Stuck transactions the engine found at their fee cap (sent again unchanged) during the
   * phase: the fee market above what the writes reserved.
   */
  atFeeCap: number;
  commitsPerIssuance: number;
  /** SQL statements the relayer's pool sent, per issuance (pg-boss's own pool not counted). */
  statementsPerIssuance: number;
  /** JSON-RPC requests the relayer processes sent to the node, per issuance, by method. */
  rpcPerIssuance: Record<string, number>;
  /** The relayer's event-loop delay over the phase, p99 and max (ms; the busiest process's). */
  loopP99Ms: number;
  loopMaxMs: number;
  /** CPU milliseconds per issuance: the relayer process, the whole PostgreSQL server, the node. */
  relayerCpuMs: number;
  postgresCpuMs: number;
  nodeCpuMs: number;
  /** Split phases: CPU milliseconds per issuance of the API process and of the worker. */
  roleCpuMs?: { api: number; worker: number };
  /** Share of one core over the phase. */
  relayerCpu: number;
  postgresCpu: number;
  /** The load generator's (this process's) share of one core, and the machine's busy share of all its cores. */
  loadCpu: number;
  machineBusy: number;
}

/**
 * The relayer's `rwa_db_statements_total`, its `rpc_calls_total` per method, and its event loop's
 * delay (p99 and max, in ms) since the last scrape, read from its `/metrics` (prom-client resets
 * the delay histogram on each scrape): how long work already due waited for the one thread.
 */
async function relayerReadings(
  cluster: Cluster,
  baseUrl: string,
): Promise<{
  statements: number;
  atFeeCap: number;
  rpc: Map<string, number>;
  loopP99Ms: number;
  loopMaxMs: number;
}> {
  const res = await fetch(`${baseUrl}/metrics`, {
    headers: { "x-admin-token": cluster.adminToken },
  });
  const text = await res.text();
  const value = (name: string) => {
    const line = new RegExp(`^${name}\\s+(\\S+)$`, "m").exec(text);
    return line === null ? Number.NaN : Number(line[1]);
  };
  /** A series with one label: its values by label value (`name{label="v"} n` lines). */
  const byLabel = (name: string, label: string) => {
    const values = new Map<string, number>();
    for (const m of text.matchAll(new RegExp(`^${name}\\{${label}="([^"]+)"\\}\\s+(\\S+)$`, "gm")))
      values.set(m[1]!, Number(m[2]));
    return values;
  };
  return {
    statements: value("rwa_db_statements_total"),
    atFeeCap: byLabel("rwa_tx_repricings_total", "outcome").get("at-cap") ?? 0,
    rpc: byLabel("rpc_calls_total", "method"),
    loopP99Ms: value("nodejs_eventloop_lag_p99_seconds") * 1000,
    loopMaxMs: value("nodejs_eventloop_lag_max_seconds") * 1000,
  };
}

/**
 * The relayer's own `http_request_duration_seconds` buckets for `POST issue-asset` answered with
 * `status` (cumulative counts by upper bound), summed over `baseUrls`: the server's side of the
 * latency, without the load generator's queueing on the same cores.
 */
async function serverBuckets(
  cluster: Cluster,
  baseUrls: readonly string[],
  status: number,
): Promise<Map<number, number>> {
  const buckets = new Map<number, number>();
  for (const baseUrl of baseUrls) {
    const res = await fetch(`${baseUrl}/metrics`, {
      headers: { "x-admin-token": cluster.adminToken },
    });
    for (const line of (await res.text()).split("\n")) {
      if (!line.startsWith("http_request_duration_seconds_bucket{")) continue;
      if (
        !line.includes('route="/api/v1/write/issue-asset"') ||
        !line.includes(`status="${status}"`)
      )
        continue;
      const le = /le="([^"]+)"/.exec(line)?.[1];
      const count = Number(line.split(" ").at(-1));
      const bound = le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le);
      buckets.set(bound, (buckets.get(bound) ?? 0) + count);
    }
  }
  return buckets;
}

/** A base fee in gwei, with three significant digits. */
function gwei(value: number): string {
  return value.toPrecision(3);
}

/** Node requests per issuance: the total, then the three most frequent methods. */
function rpcSummary(perIssuance: Record<string, number>): string {
  const entries = Object.entries(perIssuance);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const top = entries
    .slice(0, 3)
    .map(([method, n]) => `${method} ${n.toFixed(2)}`)
    .join(", ");
  return `${total.toFixed(2)} (${top})`;
}

/** The upper bound of the bucket holding the 99th percentile of `after - before`, in ms. */
function bucketP99(before: Map<number, number>, after: Map<number, number>): number | undefined {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total =
    (after.get(Number.POSITIVE_INFINITY) ?? 0) - (before.get(Number.POSITIVE_INFINITY) ?? 0);
  if (total <= 0) return undefined;
  for (const bound of bounds) {
    const count = (after.get(bound) ?? 0) - (before.get(bound) ?? 0);
    if (count >= total * 0.99) return bound * 1000;
  }
  return undefined;
}

/** The machine's busy and total CPU time over all cores (/proc/stat's first line, in ticks). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8")
    .split("\n")[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

/** CPU seconds (user + system) of a process, from /proc. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks (100 Hz)
  } catch {
    return 0;
  }
}

/** The fields of `/proc/<pid>/stat` after the command name (field 3 is index 0). */
function procStat(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of the whole PostgreSQL server: the postmaster (found as a backend's parent), its
 * live children (backends, WAL writer, checkpointer, autovacuum) and the children it has
 * reaped (`cutime`/`cstime`). Summing only the live backends of the bench's database missed the
 * background processes and every backend that exited within a phase (it read 0 after the
 * 2-process phase).
 */
function serverCpuSeconds(backendPid: number): number {
  const postmaster = Number(procStat(backendPid)?.[1] ?? Number.NaN);
  const own = procStat(postmaster);
  if (own === undefined) return Number.NaN;
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat !== undefined && Number(stat[1]) === postmaster)
      ticks += Number(stat[11]) + Number(stat[12]);
  }
  return ticks / 100; // clock ticks (100 Hz)
}

/** Commits so far in the bench database, and the CPU of its server. */
async function databaseCounters(cluster: Cluster): Promise<{ commits: number; cpu: number }> {
  const { rows } = await cluster.pool.query<{ commits: string; pid: number }>(
    `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::text AS commits,
            pg_backend_pid() AS pid`,
  );
  const row = rows[0]!;
  return { commits: Number(row.commits), cpu: serverCpuSeconds(row.pid) };
}

/**
 * Blocks mined in [from, to]: how many, how many were full (≥ 90% of the gas limit), txs, and
 * the base fee (gwei) at the first block, its highest, and at the last.
 */
async function blockStats(provider: JsonRpcProvider, from: number, to: number) {
  let full = 0;
  let txs = 0;
  const baseFees: number[] = [];
  for (let n = from; n <= to; n++) {
    const block = await provider.getBlock(n);
    if (block === null) continue;
    txs += block.transactions.length;
    if (block.gasUsed * 10n >= block.gasLimit * 9n) full++;
    baseFees.push(Number(block.baseFeePerGas ?? 0n) / 1e9);
  }
  return {
    blocks: Math.max(0, to - from + 1),
    full,
    txs,
    baseFeeGwei: {
      start: baseFees[0] ?? 0,
      max: Math.max(0, ...baseFees),
      end: baseFees.at(-1) ?? 0,
    },
  };
}

/** Registers `count` organizations and gives each wallet plenty of coin. */
export async function registerOrgs(
  cluster: Cluster,
  provider: JsonRpcProvider,
  count: number,
): Promise<ClusterOrg[]> {
  // The dev faucet pays 100 coin per org from the operator account: top it up first.
  await provider.send("anvil_setBalance", [
    new Wallet(cluster.env.OPERATOR_PRIVATE_KEY!).address,
    toBeHex(parseEther("10000000")),
  ]);
  const orgs: ClusterOrg[] = [];
  for (let i = 0; i < count; i += 10) {
    const chunk = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, () => cluster.registerOrg()),
    );
    orgs.push(...chunk);
  }
  await Promise.all(
    orgs.map((o) =>
      provider.send("anvil_setBalance", [o.walletAddress, toBeHex(parseEther("100000"))]),
    ),
  );
  return orgs;
}

async function measure(
  cluster: Cluster,
  provider: JsonRpcProvider,
  name: string,
  orgs: number,
  mode: PhaseResult["mode"],
  run: () => Promise<{
    ok: number;
    latencies: number[];
    acceptLatencies?: number[];
    refused?: { latencies: number[]; retryAfter: Set<string> };
    offered?: number;
    errors: Record<string, number>;
  }>,
): Promise<PhaseResult> {
  const relayers = liveRelayers(cluster);
  const relayerCpu = () => relayers.reduce((sum, r) => sum + cpuSeconds(r.pid), 0);
  const roleCpu = () => {
    const byRole = { api: 0, worker: 0 };
    for (const r of relayers) {
      const role = ROLES.get(r);
      if (role !== undefined) byRole[role] += cpuSeconds(r.pid);
    }
    return byRole;
  };
  const rolesBefore = roleCpu();
  // Statements summed over the processes; the event loop's delay of the busiest one that serves
  // requests (a worker's loop delays no answer).
  const readings = async () => {
    const sum = {
      statements: 0,
      atFeeCap: 0,
      rpc: new Map<string, number>(),
      loopP99Ms: 0,
      loopMaxMs: 0,
    };
    for (const r of relayers) {
      const one = await relayerReadings(cluster, r.baseUrl);
      sum.statements += one.statements;
      sum.atFeeCap += one.atFeeCap;
      for (const [method, n] of one.rpc) sum.rpc.set(method, (sum.rpc.get(method) ?? 0) + n);
      if (ROLES.get(r) === "worker") continue;
      sum.loopP99Ms = Math.max(sum.loopP99Ms, one.loopP99Ms);
      sum.loopMaxMs = Math.max(sum.loopMaxMs, one.loopMaxMs);
    }
    return sum;
  };
  const nodePid = cluster.anvil.pid ?? -1;
  const answerStatus = mode === "async" ? 202 : 200;
  const urls = relayers.filter((r) => ROLES.get(r) !== "worker").map((r) => r.baseUrl);
  const serverBefore = await serverBuckets(cluster, urls, answerStatus);
  const before = {
    machine: machineTicks(),
    load: process.cpuUsage(),
    db: await databaseCounters(cluster),
    cpu: relayerCpu(),
    node: cpuSeconds(nodePid),
    readings: await readings(),
    block: await provider.getBlockNumber(),
  };
  const t0 = performance.now();
  const outcome = await run();
  const seconds = (performance.now() - t0) / 1000;
  const after = {
    machine: machineTicks(),
    load: process.cpuUsage(before.load),
    db: await databaseCounters(cluster),
    cpu: relayerCpu(),
    node: cpuSeconds(nodePid),
    readings: await readings(),
    block: await provider.getBlockNumber(),
  };
  const serverP99 = bucketP99(serverBefore, await serverBuckets(cluster, urls, answerStatus));
  const minted = Math.max(1, outcome.ok);
  const postgresSeconds = Math.max(0, after.db.cpu - before.db.cpu);
  const blocks = await blockStats(provider, before.block + 1, after.block);
  const result: PhaseResult = {
    name,
    orgs,
    mode,
    ok: outcome.ok,
    errors: outcome.errors,
    seconds,
    mintedPerSecond: outcome.ok / seconds,
    p50: percentile(outcome.latencies, 50),
    p95: percentile(outcome.latencies, 95),
    p99: percentile(outcome.latencies, 99),
    ...(outcome.acceptLatencies === undefined
      ? {}
      : {
          acceptP50: percentile(outcome.acceptLatencies, 50),
          acceptP99: percentile(outcome.acceptLatencies, 99),
        }),
    ...(outcome.offered === undefined ? {} : { offered: outcome.offered }),
    ...(outcome.refused === undefined || outcome.refused.latencies.length === 0
      ? {}
      : {
          refusedP99: percentile(outcome.refused.latencies, 99),
          retryAfter: [...outcome.refused.retryAfter].sort().join("/"),
        }),
    ...(serverP99 === undefined ? {} : { serverP99 }),
    fullBlocks: blocks.full,
    blocks: blocks.blocks,
    baseFeeGwei: blocks.baseFeeGwei,
    atFeeCap: after.readings.atFeeCap - before.readings.atFeeCap,
    commitsPerIssuance: (after.db.commits - before.db.commits) / minted,
    statementsPerIssuance: (after.readings.statements - before.readings.statements) / minted,
    rpcPerIssuance: Object.fromEntries(
      [...after.readings.rpc]
        .map(
          ([method, n]) => [method, (n - (before.readings.rpc.get(method) ?? 0)) / minted] as const,
        )
        .filter(([, perIssuance]) => perIssuance > 0)
        .sort((a, b) => b[1] - a[1]),
    ),
    loopP99Ms: after.readings.loopP99Ms,
    loopMaxMs: after.readings.loopMaxMs,
    relayerCpuMs: ((after.cpu - before.cpu) * 1000) / minted,
    postgresCpuMs: (postgresSeconds * 1000) / minted,
    nodeCpuMs: ((after.node - before.node) * 1000) / minted,
    ...(relayers.some((r) => ROLES.has(r))
      ? {
          roleCpuMs: (({ api, worker }) => ({
            api: ((api - rolesBefore.api) * 1000) / minted,
            worker: ((worker - rolesBefore.worker) * 1000) / minted,
          }))(roleCpu()),
        }
      : {}),
    relayerCpu: (after.cpu - before.cpu) / seconds,
    loadCpu: (after.load.user + after.load.system) / 1e6 / seconds,
    machineBusy:
      (after.machine.busy - before.machine.busy) /
      Math.max(1, after.machine.total - before.machine.total),
    postgresCpu: postgresSeconds / seconds,
  };
  return result;
}

/** Relayers spawned with a RELAYER_ROLE other than `all` (the split phases). */
const ROLES = new WeakMap<ClusterRelayer, "api" | "worker">();

function liveRelayers(cluster: Cluster): ClusterRelayer[] {
  return cluster.relayers.filter(
    (r) => r.process.child.exitCode === null && r.process.child.signalCode === null,
  );
}

/** Stops every running relayer cleanly (SIGTERM: leases given back, work left in PostgreSQL). */
async function stopRelayers(cluster: Cluster): Promise<void> {
  await Promise.all(
    liveRelayers(cluster).map(async (r) => {
      r.process.child.kill("SIGTERM");
      await r.process.exited;
    }),
  );
}

function countError(errors: Record<string, number>, key: string): void {
  errors[key] = (errors[key] ?? 0) + 1;
}

/**
 * Runs WRITERS concurrent loops per org for SECONDS, each calling `write(org)` until time is up;
 * `write` resolves with a failed request's error key (counted), or undefined.
 */
async function writeForSeconds(
  orgs: ClusterOrg[],
  baseUrls: readonly string[],
  write: (org: ClusterOrg, baseUrl: string) => Promise<string | undefined>,
): Promise<Record<string, number>> {
  const until = performance.now() + SECONDS * 1000;
  const errors: Record<string, number> = {};
  // The bench's balancer: writer i of every org talks to process i mod N, round-robin.
  await Promise.all(
    orgs.flatMap((org) =>
      Array.from({ length: WRITERS }, async (_, i) => {
        const baseUrl = baseUrls[i % baseUrls.length]!;
        while (performance.now() < until) {
          const failed = await write(org, baseUrl);
          if (failed !== undefined) countError(errors, failed);
        }
      }),
    ),
  );
  return errors;
}

/**
 * Waits as a client honouring `Retry-After` does (the SDK's `retryDelayMs`): the header's
 * seconds when there is one, else `fallbackMs`.
 */
async function backOff(headers: Headers | undefined, fallbackMs: number): Promise<void> {
  const seconds = Number(headers?.get("retry-after") ?? Number.NaN);
  const ms = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : fallbackMs;
  await new Promise((r) => setTimeout(r, ms));
}

/** One issue-asset request from `org` (`options` on top); a network error answers status 0. */
async function issueTimed(baseUrl: string, org: ClusterOrg, options: CallOptions) {
  const t0 = performance.now();
  const res = await call(baseUrl, "POST", "/api/v1/write/issue-asset", {
    apiKey: org.apiKey,
    body: BODY,
    ...options,
  }).catch((e: unknown) => ({ status: 0, text: String(e), body: undefined, headers: undefined }));
  return { res, ms: performance.now() - t0 };
}

/** `orgs` × 10 writers issuing synchronously for SECONDS; minted/s counts the answered 200s. */
async function syncPhase(baseUrls: readonly string[], orgs: ClusterOrg[]) {
  const latencies: number[] = [];
  const errors = await writeForSeconds(orgs, baseUrls, async (org, baseUrl) => {
    const { res, ms } = await issueTimed(baseUrl, org, { timeoutMs: 120_000 });
    if (res.status === 200) {
      latencies.push(ms);
      answered.add(res.headers?.get("x-transaction-id") ?? "");
      return undefined;
    }
    await backOff(res.headers, 200);
    return `${res.status}`;
  });
  return { ok: latencies.length, latencies, errors };
}

/**
 * Waits until every write of `ids` is final; counts those not confirmed in `errors.failed`.
 * Returns how many were confirmed and their latencies (created → confirmed).
 */
async function settle(cluster: Cluster, ids: readonly string[], errors: Record<string, number>) {
  for (;;) {
    const { rows } = await cluster.pool.query<{ live: string }>(
      "SELECT count(*)::text AS live FROM transactions WHERE id = ANY($1::text[]) AND state IN ('queued', 'sent')",
      [ids],
    );
    if (rows[0]!.live === "0") break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const { rows } = await cluster.pool.query<{ ms: number }>(
    "SELECT extract(epoch FROM confirmed_at - created_at) * 1000 AS ms FROM transactions WHERE id = ANY($1::text[]) AND state = 'confirmed'",
    [ids],
  );
  const failed = ids.length - rows.length;
  if (failed > 0) errors.failed = failed;
  return { ok: rows.length, latencies: rows.map((r) => Number(r.ms)) };
}

/**
 * Waits until no write is live, those of requests the load generator gave up on included (their
 * rows were recorded: they are sent and mined like any other), so the counts that follow compare
 * final rows with the chain. Prints progress every 10 s; gives up after 10 minutes (the counts
 * then say so).
 */
async function drainAll(cluster: Cluster): Promise<void> {
  const started = performance.now();
  let said = started;
  for (;;) {
    const { rows } = await cluster.pool.query<{ live: string }>(
      "SELECT count(*)::text AS live FROM transactions WHERE state IN ('queued', 'sent', 'mined')",
    );
    const live = Number(rows[0]!.live);
    if (live === 0) return;
    const now = performance.now();
    if (now - started > 600_000) {
      console.log(`  ${live} writes still live after 10 minutes; counting anyway`);
      return;
    }
    if (now - said >= 10_000) {
      console.log(`  waiting for ${live} live writes to be final...`);
      said = now;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * `orgs` × 10 writers sending `Prefer: respond-async` for SECONDS (each writer keeps at most one
 * request open); then waits for every accepted write to be final. Latency = created → confirmed.
 */
async function asyncPhase(cluster: Cluster, baseUrls: readonly string[], orgs: ClusterOrg[]) {
  const ids: string[] = [];
  const acceptLatencies: number[] = [];
  const errors = await writeForSeconds(orgs, baseUrls, async (org, baseUrl) => {
    const { res, ms } = await issueTimed(baseUrl, org, { headers: { prefer: "respond-async" } });
    if (res.status === 202) {
      acceptLatencies.push(ms);
      ids.push((res.body as { transactionId: string }).transactionId);
      answered.add((res.body as { transactionId: string }).transactionId);
      return undefined;
    }
    // 429: too many of this org's writes in progress or queued; back off as the SDK does.
    await backOff(res.headers, 250);
    return `${res.status}`;
  });
  return { ...(await settle(cluster, ids, errors)), acceptLatencies, errors };
}

/**
 * Open arrivals: `rate` `Prefer: respond-async` issue-asset requests per second, spread
 * round-robin over `orgs`, each sent on its schedule whatever became of the ones before (an
 * integrator's requests arrive independently of our answers; a closed loop of writers measures
 * throughput, not the latency of an answer at a given load). A request's latency counts from its
 * scheduled instant, so a late send counts against us. 429s are counted with their latency and
 * `Retry-After`; then the phase waits for every accepted write to be final.
 */
async function arrivalPhase(cluster: Cluster, baseUrl: string, orgs: ClusterOrg[], rate: number) {
  const ids: string[] = [];
  const acceptLatencies: number[] = [];
  const refused = { latencies: [] as number[], retryAfter: new Set<string>() };
  const errors: Record<string, number> = {};
  const requests: Array<Promise<void>> = [];
  const t0 = performance.now();
  const total = Math.round(rate * SECONDS);
  let sent = 0;
  // Integrators keep pools of open connections (so does a load balancer in front of us): a
  // request waits for a free one (the wait counts: latency runs from the scheduled instant) rather
  // than opening a new TCP connection per request, which would measure connection churn.
  const agent = new Agent({ connections: ARRIVAL_CONNECTIONS });
  const { origin, pathname } = new URL(`${baseUrl}/api/v1/write/issue-asset`);
  const body = JSON.stringify(BODY);
  // undici's request rather than fetch: the load generator shares the two cores with what it
  // measures, and fetch's streams cost it several times the CPU per request.
  const send = (org: ClusterOrg, due: number) =>
    agent
      .request({
        origin,
        path: pathname,
        method: "POST",
        headers: {
          "x-api-key": org.apiKey,
          "content-type": "application/json",
          prefer: "respond-async",
        },
        body,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      })
      .then(async (response) => ({
        status: response.statusCode,
        retryAfter: response.headers["retry-after"],
        body: await response.body.json().catch((): unknown => undefined),
      }))
      .then((res) => {
        const ms = performance.now() - due;
        if (res.status === 202) {
          acceptLatencies.push(ms);
          const id = (res.body as { transactionId: string }).transactionId;
          ids.push(id);
          answered.add(id);
        } else {
          const said = (res.body as { error?: unknown } | undefined)?.error;
          countError(errors, res.status === 429 ? "429" : `${res.status} ${String(said)}`);
          if (res.status === 429) {
            refused.latencies.push(ms);
            refused.retryAfter.add(String(res.retryAfter ?? "none"));
          }
        }
      })
      .catch((e: unknown) =>
        countError(
          errors,
          `network (${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name})`,
        ),
      );
  while (sent < total) {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - t0) / 1000) * rate) + 1);
    for (; sent < due; sent++)
      requests.push(send(orgs[sent % orgs.length]!, t0 + (sent / rate) * 1000));
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(requests);
  await agent.close();
  return {
    ...(await settle(cluster, ids, errors)),
    acceptLatencies,
    refused,
    offered: rate,
    errors,
  };
}

/** One 50-item batch-issue per org, all at once; latency = the batch's answer. */
async function batchPhase(baseUrl: string, orgs: ClusterOrg[]) {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let ok = 0;
  await Promise.all(
    orgs.map(async (org) => {
      const t0 = performance.now();
      const res = await call(baseUrl, "POST", "/api/v1/write/batch-issue", {
        apiKey: org.apiKey,
        body: { assets: Array.from({ length: 50 }, (_, i) => ({ ...BODY, name: `Batch ${i}` })) },
        timeoutMs: 180_000,
      }).catch((e: unknown) => ({ status: 0, text: String(e), body: undefined }));
      if (res.status === 200) {
        latencies.push(performance.now() - t0);
        ok += (res.body as { issued: number }).issued;
        answered.add("headers" in res ? (res.headers.get("x-transaction-id") ?? "") : "");
      } else countError(errors, `${res.status}`);
    }),
  );
  return { ok, latencies, errors };
}

/** One line chart of the scale chart: the rows of one `axis` against the number of orgs. */
function panel(axis: "rate" | "latency", title: string) {
  return {
    transform: [{ filter: `datum.axis === '${axis}'` }],
    mark: { type: "line" as const, point: true },
    encoding: {
      x: {
        field: "orgs",
        type: "quantitative" as const,
        title: "organizations × 10 writers",
        scale: { type: "log" as const },
      },
      y: { field: "value", type: "quantitative" as const, title },
      color: { field: "series", type: "nominal" as const },
    },
  };
}

async function writeChart(results: PhaseResult[], limit: number): Promise<string> {
  const rows = results
    .filter((r) => r.mode !== "batch")
    .flatMap((r) => [
      { orgs: r.orgs, series: `minted/s (${r.mode})`, value: r.mintedPerSecond, axis: "rate" },
      { orgs: r.orgs, series: `p50 latency s (${r.mode})`, value: r.p50 / 1000, axis: "latency" },
    ]);
  for (const orgs of ORG_COUNTS)
    rows.push({ orgs, series: "chain limit (raw wallets)", value: limit, axis: "rate" });
  const spec: vegaLite.TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: "Relayer writes against the chain's limit (anvil, 1 s blocks)",
    width: 520,
    height: 260,
    data: { values: rows },
    vconcat: [panel("rate", "mints per second"), panel("latency", "p50 latency (s)")],
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  const file = path.join(OUT, "scale.svg");
  writeFileSync(file, svg);
  return file;
}

/**
 * Crash: `orgs` × 10 async writers; the relayer is SIGKILLed mid-load and a new one started.
 * Every accepted write (202) must end confirmed, and the chain must hold exactly one token per
 * confirmed row (rows recorded by requests the kill cut off count too: they were recorded).
 */
async function crashPhase(
  cluster: Cluster,
  token: ReturnType<typeof AssetToken__factory.connect>,
  orgs: ClusterOrg[],
): Promise<void> {
  console.log(
    `\nCrash: ${orgs.length} orgs × ${WRITERS} async writers, relayer SIGKILLed after 3 s:`,
  );
  await drainAll(cluster);
  const supplyBefore = await token.totalSupply();
  const { rows: before } = await cluster.pool.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM transactions WHERE kind = 'issue-asset' AND state = 'confirmed'",
  );
  const victim = liveRelayers(cluster)[0]!;
  const accepted: string[] = [];
  const until = performance.now() + 6_000;
  const load = Promise.all(
    orgs.flatMap((org) =>
      Array.from({ length: WRITERS }, async () => {
        while (performance.now() < until) {
          const res = await call(victim.baseUrl, "POST", "/api/v1/write/issue-asset", {
            apiKey: org.apiKey,
            body: BODY,
            headers: { prefer: "respond-async" },
            timeoutMs: 5_000,
          }).catch(() => undefined);
          if (res?.status === 202)
            accepted.push((res.body as { transactionId: string }).transactionId);
          else await new Promise((r) => setTimeout(r, 100));
        }
      }),
    ),
  );
  await new Promise((r) => setTimeout(r, 3_000));
  victim.process.child.kill("SIGKILL");
  await load;
  const t0 = performance.now();
  await cluster.spawn();
  await drainAll(cluster);
  const { rows: states } = await cluster.pool.query<{ state: string; n: string }>(
    "SELECT state, count(*)::text AS n FROM transactions WHERE id = ANY($1::text[]) GROUP BY state",
    [accepted],
  );
  const { rows: after } = await cluster.pool.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM transactions WHERE kind = 'issue-asset' AND state = 'confirmed'",
  );
  const confirmedRows = Number(after[0]!.n) - Number(before[0]!.n);
  const minted = Number((await token.totalSupply()) - supplyBefore);
  const byState = Object.fromEntries(states.map((r) => [r.state, Number(r.n)]));
  console.log(
    `  accepted ${accepted.length} (${JSON.stringify(byState)}), rows confirmed ${confirmedRows}, tokens minted ${minted}, ` +
      `recovered in ${((performance.now() - t0) / 1000).toFixed(1)} s after restart: ` +
      (minted === confirmedRows && (byState.confirmed ?? 0) === accepted.length
        ? "every accepted write minted once"
        : "MISMATCH"),
  );
}

/**
 * The plain client's phases (`bench/plain-client.ts`), each followed by a drain so the next starts
 * with no backlog; every write answered 200 or 202 joins the final no-duplicate check.
 */
async function plainClientPhases(
  cluster: Cluster,
  provider: JsonRpcProvider,
  baseUrl: string,
  orgs: ClusterOrg[],
  limit: number,
): Promise<void> {
  if (!["cold", "flood", "sync-flood", "quiet"].some((p) => PHASES.has(p))) return;
  console.log(
    `\nA plain client (global fetch, one process), ${orgs.length} orgs, ${SECONDS} s per phase; answers are 202/200 and 429 alike:`,
  );
  const run = async (name: string, load: Parameters<typeof plainPhase>[4]) => {
    // The server's own view beside the client's: its request histogram's p99 bucket per status.
    const statuses = [200, 202, 429];
    const before = await Promise.all(statuses.map((s) => serverBuckets(cluster, [baseUrl], s)));
    const phase: PlainPhase = await plainPhase(provider, name, limit, SECONDS, load);
    const after = await Promise.all(statuses.map((s) => serverBuckets(cluster, [baseUrl], s)));
    for (const a of phase.answers)
      if ((a.status === 200 || a.status === 202) && a.transactionId !== undefined)
        answered.add(a.transactionId);
    reportPlain(phase);
    const server = statuses
      .map((s, i) => [s, bucketP99(before[i]!, after[i]!)] as const)
      .filter(([, p99]) => p99 !== undefined)
      .map(([s, p99]) => `${s} ≤ ${p99!.toFixed(0)} ms`);
    console.log(
      `${"".padEnd(36)}the server's own p99 (its histogram's bucket): ${server.join(", ")}`,
    );
    await drainAll(cluster);
  };
  if (PHASES.has("cold")) {
    console.log(`  (${IDLE_SECONDS} s without a write first)`);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const rate = Math.round(limit * 0.8);
    await run(`cold: async ${rate}/s after ${IDLE_SECONDS} s idle`, () =>
      openArrivals(baseUrl, orgs, rate, SECONDS),
    );
  }
  const writers = orgs.length * WRITERS;
  if (PHASES.has("flood"))
    await run(`flood: ${writers} async writers`, () =>
      closedLoops(baseUrl, orgs, writers, SECONDS, true),
    );
  if (PHASES.has("sync-flood"))
    await run(`sync-flood: ${writers} sync writers`, () =>
      closedLoops(baseUrl, orgs, writers, SECONDS, false),
    );
  // The cold phase's burst meets each organization's first write ever (its wallet's first nonce,
  // its policy and wallet read for the first time); this one meets organizations that wrote
  // before, after the same quiet spell, as a nightly batch or a sale opening would.
  if (PHASES.has("quiet")) {
    if (!PHASES.has("cold") && !PHASES.has("flood") && !PHASES.has("sync-flood")) {
      console.log("  (one write per organization first, so none is its first)");
      await closedLoops(baseUrl, orgs, orgs.length, 1, true);
      await drainAll(cluster);
    }
    console.log(`  (${IDLE_SECONDS} s without a write first)`);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const rate = Math.round(limit * 0.8);
    await run(`quiet: async ${rate}/s after ${IDLE_SECONDS} s idle, orgs that wrote before`, () =>
      openArrivals(baseUrl, orgs, rate, SECONDS),
    );
  }
}

export async function runScaleBench(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  console.log(
    `Starting anvil (1 s blocks${BASE_FEE === undefined ? "" : `, base fee ${BASE_FEE} wei`}), PostgreSQL and one relayer process (API_KEY_RATE_LIMIT_PER_MINUTE=${RATE_LIMIT} for the bench only)...`,
  );
  const cluster = await startCluster({
    blockTime: 1,
    env: { API_KEY_RATE_LIMIT_PER_MINUTE: RATE_LIMIT, LOG_LEVEL: "warn" },
    anvilArgs: BASE_FEE === undefined ? [] : ["--base-fee", BASE_FEE],
  });
  const provider = new JsonRpcProvider(cluster.rpcUrl, 1236, { staticNetwork: true });
  try {
    const relayer = await cluster.spawn();
    const token = AssetToken__factory.connect(cluster.contracts.assetToken, provider);

    console.log("\nChain limit (100 raw wallets, signed in advance, pipelined):");
    const limit = await chainLimit(provider, cluster.rpcUrl, cluster.contracts.assetToken);
    console.log(`  ${limit.toFixed(1)} mints/s`);

    // Writes answer once the indexer has applied their block: let it index the burst first.
    const head = await provider.getBlockNumber();
    const t0 = performance.now();
    for (;;) {
      const { rows } = await cluster.pool.query<{ n: string }>(
        "SELECT block_number::text AS n FROM indexer_cursor WHERE id = 'main'",
      );
      if (Number(rows[0]?.n ?? -1) >= head) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(
      `  the indexer applied the burst's blocks ${((performance.now() - t0) / 1000).toFixed(1)} s after the last one was mined`,
    );

    const maxOrgs = Math.max(...ORG_COUNTS);
    console.log(`\nRegistering ${maxOrgs} organizations...`);
    const allOrgs = await registerOrgs(cluster, provider, maxOrgs);
    const supplyBefore = await token.totalSupply();
    const results: PhaseResult[] = [];
    const report = (r: PhaseResult) => {
      results.push(r);
      const errors = Object.entries(r.errors)
        .map(([k, v]) => `${k}×${v}`)
        .join(" ");
      console.log(
        `  ${r.name.padEnd(28)} ${r.mintedPerSecond.toFixed(1).padStart(6)} minted/s  ratio ${(r.mintedPerSecond / limit).toFixed(2)}  ` +
          `p50 ${(r.p50 / 1000).toFixed(2)} s p95 ${(r.p95 / 1000).toFixed(2)} s p99 ${(r.p99 / 1000).toFixed(2)} s` +
          (r.acceptP99 === undefined
            ? ""
            : `  202 p50 ${r.acceptP50?.toFixed(0)} ms p99 ${r.acceptP99.toFixed(0)} ms`) +
          (r.refusedP99 === undefined
            ? ""
            : `  429 p99 ${r.refusedP99.toFixed(0)} ms (Retry-After ${r.retryAfter})`) +
          (r.serverP99 === undefined ? "" : ` (server ≤ ${r.serverP99.toFixed(0)} ms)`) +
          `  event loop delay p99 ${r.loopP99Ms.toFixed(0)} ms max ${r.loopMaxMs.toFixed(0)} ms` +
          `  full blocks ${r.fullBlocks}/${r.blocks}, base fee ${gwei(r.baseFeeGwei.start)} → ${gwei(r.baseFeeGwei.end)} gwei (max ${gwei(r.baseFeeGwei.max)}), at fee cap ${r.atFeeCap}\n${"".padEnd(30)}per issuance: CPU ms relayer ${r.relayerCpuMs.toFixed(1)} ` +
          (r.roleCpuMs === undefined
            ? ""
            : `(API ${r.roleCpuMs.api.toFixed(1)} + worker ${r.roleCpuMs.worker.toFixed(1)}) `) +
          `postgres ${r.postgresCpuMs.toFixed(1)} node ${r.nodeCpuMs.toFixed(1)}; statements ${r.statementsPerIssuance.toFixed(1)} ` +
          `commits ${r.commitsPerIssuance.toFixed(1)}; node requests ${rpcSummary(r.rpcPerIssuance)}  (CPU relayer ${(r.relayerCpu * 100).toFixed(0)}% postgres ${(r.postgresCpu * 100).toFixed(0)}% load generator ${(r.loadCpu * 100).toFixed(0)}% of a core; machine ${(r.machineBusy * 100).toFixed(0)}% busy)` +
          (errors === "" ? "" : `  errors ${errors}`),
      );
    };
    /** Measures one phase (`measure`) and prints it. */
    const phase = async (
      name: string,
      orgs: number,
      mode: PhaseResult["mode"],
      run: Parameters<typeof measure>[5],
    ) => report(await measure(cluster, provider, name, orgs, mode, run));

    await plainClientPhases(cluster, provider, relayer.baseUrl, allOrgs, limit);

    if (PHASES.has("sync")) console.log(`\nSynchronous issue-asset, ${SECONDS} s per phase:`);
    for (const n of PHASES.has("sync") ? ORG_COUNTS : []) {
      const orgs = allOrgs.slice(0, n);
      await phase(`${n} orgs × ${WRITERS} sync`, n, "sync", () =>
        syncPhase([relayer.baseUrl], orgs),
      );
    }
    if (PHASES.has("async"))
      console.log(`\nPrefer: respond-async, ${SECONDS} s of sending, until all are final:`);
    for (const n of PHASES.has("async") ? ORG_COUNTS.filter((n) => n >= 10) : []) {
      const orgs = allOrgs.slice(0, n);
      await phase(`${n} orgs × ${WRITERS} async`, n, "async", () =>
        asyncPhase(cluster, [relayer.baseUrl], orgs),
      );
    }
    if (PHASES.has("arrivals")) {
      console.log(
        `\nOpen arrivals: respond-async requests at a fixed rate over ${maxOrgs} orgs, ${SECONDS} s, until all are final:`,
      );
      for (const multiple of ARRIVALS) {
        const rate = Math.round(limit * multiple);
        await phase(`${maxOrgs} orgs async ${rate}/s`, maxOrgs, "async", () =>
          arrivalPhase(cluster, relayer.baseUrl, allOrgs.slice(0, maxOrgs), rate),
        );
      }
    }
    if (PROCESSES > 1 && PHASES.has("processes")) {
      // Scale-out: the same load spread over N relayer processes on one PostgreSQL. On two cores
      // the second process competes with the first for CPU; the figure shows what it costs.
      while (cluster.relayers.length < PROCESSES) await cluster.spawn();
      const urls = cluster.relayers.map((r) => r.baseUrl);
      console.log(`\n${PROCESSES} relayer processes, writers spread round-robin, ${SECONDS} s:`);
      const orgs = allOrgs.slice(0, maxOrgs);
      await phase(`${maxOrgs} orgs sync × ${PROCESSES} proc`, maxOrgs, "sync", () =>
        syncPhase(urls, orgs),
      );
      await phase(`${maxOrgs} orgs async × ${PROCESSES} proc`, maxOrgs, "async", () =>
        asyncPhase(cluster, urls, orgs),
      );
    }
    const batchOrgs = Math.min(50, maxOrgs);
    if (PHASES.has("batch")) {
      console.log(`\nBatches: ${batchOrgs} orgs × one 50-item batch-issue:`);
      await phase(`${batchOrgs} orgs × 50-item batch`, batchOrgs, "batch", () =>
        batchPhase(relayer.baseUrl, allOrgs.slice(0, batchOrgs)),
      );
    }

    if (PHASES.has("split")) {
      // The same load on an API-only process, with the engine, the indexer and the deliveries in
      // a worker process of their own (RELAYER_ROLE): the request thread carries only requests.
      await stopRelayers(cluster);
      const api = await cluster.spawn({ RELAYER_ROLE: "api" });
      const worker = await cluster.spawn({ RELAYER_ROLE: "worker" });
      ROLES.set(api, "api");
      ROLES.set(worker, "worker");
      console.log(
        `\nSplit: one API process (RELAYER_ROLE=api) and one worker (RELAYER_ROLE=worker), ${maxOrgs} orgs, ${SECONDS} s; CPU summed over both, event loop of the API process:`,
      );
      const orgs = allOrgs.slice(0, maxOrgs);
      // In the order of the one-process phases above, so the arrivals meet warm caches there too.
      await phase(`${maxOrgs} orgs × ${WRITERS} sync split`, maxOrgs, "sync", () =>
        syncPhase([api.baseUrl], orgs),
      );
      await phase(`${maxOrgs} orgs × ${WRITERS} async split`, maxOrgs, "async", () =>
        asyncPhase(cluster, [api.baseUrl], orgs),
      );
      for (const multiple of ARRIVALS) {
        const rate = Math.round(limit * multiple);
        await phase(`${maxOrgs} orgs async ${rate}/s split`, maxOrgs, "async", () =>
          arrivalPhase(cluster, api.baseUrl, orgs, rate),
        );
      }
      await stopRelayers(cluster);
      // One process finishes what the split left live, and runs the crash phase.
      await cluster.spawn();
    }

    // No duplicate, no loss: one token per confirmed issuance row (batch items included), and
    // every write the relayer answered 200/202 ended confirmed.
    console.log("\nWaiting for every recorded write to be final...");
    await drainAll(cluster);
    const minted = Number((await token.totalSupply()) - supplyBefore);
    const succeeded = results.reduce((sum, r) => sum + r.ok, 0);
    const { rows } = await cluster.pool.query<{ n: string; distinct: string; unanswered: string }>(
      `SELECT count(*)::text AS n, count(DISTINCT result->>'tokenId')::text AS distinct,
              count(*) FILTER (WHERE coalesce(parent_id, id) <> ALL($1::text[]))::text AS unanswered
         FROM transactions WHERE state = 'confirmed' AND kind = 'issue-asset'`,
      [[...answered]],
    );
    const { rows: open } = await cluster.pool.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM transactions WHERE id = ANY($1::text[]) AND state <> 'confirmed'",
      [[...answered]],
    );
    const confirmedRows = Number(rows[0]!.n);
    console.log(
      `\nTokens minted ${minted}; confirmed issuance rows ${confirmedRows} (distinct token ids ${rows[0]!.distinct}; ` +
        `${rows[0]!.unanswered} of them recorded for requests the load generator gave up on); successful answers counted ${succeeded}; ` +
        `answered writes not confirmed: ${open[0]!.n}: ` +
        (minted === confirmedRows && rows[0]!.distinct === rows[0]!.n && open[0]!.n === "0"
          ? "no duplicate, no loss"
          : "MISMATCH"),
    );
    if (PHASES.has("crash"))
      await crashPhase(cluster, token, allOrgs.slice(0, Math.min(20, maxOrgs)));
    const chart = await writeChart(results, limit);
    writeFileSync(path.join(OUT, "scale.json"), JSON.stringify({ limit, results }, null, 2));
    console.log(
      `Chart: ${path.relative(REPO_ROOT, chart)}; figures: ${path.relative(REPO_ROOT, path.join(OUT, "scale.json"))}`,
    );
  } finally {
    provider.destroy();
    await cluster.stop();
  }
}
