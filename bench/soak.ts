/**
 * Soak run: `npm run soak -- --minutes N` (default 2). Not part of CI.
 *
 * Starts its own stack (anvil with 1 s blocks, a fresh database, the contracts and one real
 * relayer process, `relayer/src/main.ts`), or targets `BASE_URL` (with `ADMIN_TOKEN`), and keeps
 * a steady mix for N minutes: reads (status, assets, marketplace, wallet, keys) at about 20/s,
 * one issue-asset per second spread over four organizations, and the asset.issued webhook
 * deliveries those mints cause (to a local receiver). Prints a per-minute series (requests,
 * errors, p50/p99, deliveries, relayer RSS and heap from /metrics) and a summary: throughput,
 * errors by status, latency percentiles per kind, memory at start and end.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import {
  call,
  startCluster,
  type Cluster,
  type ClusterOrg,
} from "../test/reliability/support/cluster.js";
import { percentile } from "./support/percentile.js";

const { values } = parseArgs({ options: { minutes: { type: "string", default: "2" } } });
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0)
  throw new Error("--minutes must be a positive number");

const READS_PER_SECOND = 20;
const WRITES_PER_SECOND = 1;

interface Sample {
  kind: string;
  status: number;
  ms: number;
  at: number;
}

async function memory(
  baseUrl: string,
  adminToken: string,
): Promise<{ rssMb: number; heapMb: number }> {
  const text = await (
    await fetch(`${baseUrl}/metrics`, { headers: { "x-admin-token": adminToken } })
  ).text();
  const read = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return {
    rssMb: read("process_resident_memory_bytes") / 2 ** 20,
    heapMb: read("nodejs_heap_size_used_bytes") / 2 ** 20,
  };
}

async function main(): Promise<void> {
  let cluster: Cluster | undefined;
  let baseUrl = process.env.BASE_URL;
  let adminToken = process.env.ADMIN_TOKEN;
  let deliveries = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      deliveries += 1;
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/soak`;
  try {
    if (baseUrl === undefined) {
      console.log("Starting a stack (anvil 1 s blocks, PostgreSQL, one relayer process)...");
      cluster = await startCluster({ blockTime: 1 });
      const relayer = await cluster.spawn();
      baseUrl = relayer.baseUrl;
      adminToken = cluster.adminToken;
    }
    if (adminToken === undefined) throw new Error("BASE_URL needs ADMIN_TOKEN");
    const orgs: ClusterOrg[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await call(baseUrl, "POST", "/api/enterprise/register", {
        adminToken,
        body: { orgName: `Soak ${i} ${Date.now()}`, plan: "enterprise" },
      });
      if (res.status !== 200) throw new Error(`register: ${res.status} ${res.text}`);
      const org = res.body as ClusterOrg;
      await call(baseUrl, "POST", "/api/enterprise/webhooks", {
        apiKey: org.apiKey,
        body: { url: receiverUrl, events: ["asset.issued"] },
      });
      orgs.push(org);
    }

    const samples: Sample[] = [];
    const inFlight = new Set<Promise<void>>();
    const fire = (kind: string, run: () => Promise<{ status: number }>) => {
      const started = performance.now();
      const p = run()
        .then(
          (res) => res.status,
          () => 0,
        )
        .then((status) => {
          samples.push({ kind, status, ms: performance.now() - started, at: Date.now() });
        });
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    const base = baseUrl;
    const token = adminToken;
    const reads: Array<[string, (org: ClusterOrg) => Promise<{ status: number }>]> = [
      ["GET status", () => call(base, "GET", "/api/v1/status")],
      ["GET assets", () => call(base, "GET", "/api/v1/assets?limit=20")],
      ["GET marketplace", () => call(base, "GET", "/api/v1/marketplace")],
      ["GET wallet", (org) => call(base, "GET", "/api/enterprise/wallet", { apiKey: org.apiKey })],
      ["GET keys", (org) => call(base, "GET", "/api/enterprise/keys", { apiKey: org.apiKey })],
    ];

    const startMemory = await memory(base, token);
    const series: string[] = [];
    const started = Date.now();
    const end = started + minutes * 60_000;
    let tick = 0;
    let minuteStart = started;
    let minuteIndex = 0;
    console.log(
      `Soaking ${base} for ${minutes} min: ${READS_PER_SECOND} reads/s, ${WRITES_PER_SECOND} write/s`,
    );
    console.log("minute  requests  errors  p50 ms  p99 ms  deliveries  rss MB  heap MB");
    let deliveriesAtMinute = 0;
    while (Date.now() < end) {
      const org = orgs[tick % orgs.length]!;
      const [kind, run] = reads[tick % reads.length]!;
      fire(kind, () => run(org));
      if (tick % Math.round(READS_PER_SECOND / WRITES_PER_SECOND) === 0) {
        fire("POST issue-asset", () =>
          call(base, "POST", "/api/v1/write/issue-asset", {
            apiKey: org.apiKey,
            body: { assetType: "Bond", name: `Soak ${tick}`, description: "soak" },
            timeoutMs: 60_000,
          }),
        );
      }
      tick += 1;
      await new Promise((resolve) => setTimeout(resolve, 1000 / READS_PER_SECOND));
      if (Date.now() - minuteStart >= 60_000 || Date.now() >= end) {
        const window = samples.filter((s) => s.at >= minuteStart);
        const ms = window.map((s) => s.ms).sort((a, b) => a - b);
        const mem = await memory(base, token);
        minuteIndex += 1;
        const line = [
          String(minuteIndex).padStart(6),
          String(window.length).padStart(9),
          String(window.filter((s) => s.status < 200 || s.status >= 300).length).padStart(7),
          percentile(ms, 50).toFixed(1).padStart(7),
          percentile(ms, 99).toFixed(1).padStart(7),
          String(deliveries - deliveriesAtMinute).padStart(11),
          mem.rssMb.toFixed(1).padStart(7),
          mem.heapMb.toFixed(1).padStart(8),
        ].join(" ");
        series.push(line);
        console.log(line);
        deliveriesAtMinute = deliveries;
        minuteStart = Date.now();
      }
    }
    await Promise.all([...inFlight]);
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // last deliveries
    const endMemory = await memory(base, token);
    const seconds = (Date.now() - started) / 1000;

    console.log("\nSummary");
    console.log(`  duration      ${seconds.toFixed(0)} s`);
    console.log(`  requests      ${samples.length} (${(samples.length / seconds).toFixed(1)}/s)`);
    const byStatus = new Map<number, number>();
    for (const s of samples) byStatus.set(s.status, (byStatus.get(s.status) ?? 0) + 1);
    console.log(
      `  by status     ${[...byStatus]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s === 0 ? "no answer" : s}: ${n}`)
        .join(", ")}`,
    );
    const writes = samples.filter((s) => s.kind === "POST issue-asset");
    console.log(
      `  webhook deliveries received  ${deliveries} (mints answered 200: ${writes.filter((s) => s.status === 200).length})`,
    );
    console.log("  latency by kind (ms)          n      p50      p99      max");
    for (const kind of [...new Set(samples.map((s) => s.kind))].sort()) {
      const ms = samples
        .filter((s) => s.kind === kind)
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      console.log(
        `    ${kind.padEnd(24)} ${String(ms.length).padStart(6)} ${percentile(ms, 50).toFixed(1).padStart(8)} ${percentile(ms, 99).toFixed(1).padStart(8)} ${ms[ms.length - 1]!.toFixed(1).padStart(8)}`,
      );
    }
    console.log(
      `  relayer memory  start rss ${startMemory.rssMb.toFixed(1)} MB heap ${startMemory.heapMb.toFixed(1)} MB; ` +
        `end rss ${endMemory.rssMb.toFixed(1)} MB heap ${endMemory.heapMb.toFixed(1)} MB`,
    );
  } finally {
    await new Promise<void>((resolve) => {
      receiver.close(() => resolve());
      receiver.closeAllConnections();
    });
    await cluster?.stop();
  }
}

await main();
