/**
 * Long run (`npm run bench -- soak`): does the service stay bounded over time? Starts the service
 * exactly as `npm start` does on a fresh machine (`relayer/src/main.ts` with nothing configured:
 * its embedded anvil and PostgreSQL under a new DATA_DIR), measures the chain's limit on that
 * anvil from 100 raw wallets, registers 100 organizations, then sends open arrivals of async
 * issue-asset at a share of that limit with Node's global `fetch` (a plain client, each request
 * on its schedule whatever became of the ones before) for N minutes, and prints per minute:
 * - the 202's p50 and p99 (from each request's scheduled instant), 429s and socket errors;
 * - the 202's worst p99 of any second of the minute, and how many seconds had a p99 over 100 ms;
 * - the writes minted in the minute, the blocks mined, and the backlog (writes accepted, not yet
 *   final);
 * - the memory of each process (proportional set size): the relayer, anvil, and PostgreSQL (all
 *   its processes).
 * At the end, every accepted write is checked to be minted exactly once.
 *
 * Environment: BENCH_SOAK_MINUTES (default 30), BENCH_SOAK_LOAD (share of the chain's limit,
 * default 0.5), BENCH_SOAK_ORGS (default 100). Prints; asserts nothing.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { JsonRpcProvider, parseEther, toBeHex } from "ethers";
import { loadDeployment } from "../deploy/deployment-file.js";
import { REPO_ROOT } from "../relayer/src/config.js";
import { readDevSecrets } from "../relayer/src/infra/dev-secrets.js";
import { AssetToken__factory } from "../typechain-types/index.js";
import { chainLimit } from "./support/chain-limit.js";
import { percentile } from "./support/percentile.js";

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const LOAD = Number(process.env.BENCH_SOAK_LOAD ?? 0.5);
const ORGS = Number(process.env.BENCH_SOAK_ORGS ?? 100);
const BODY = JSON.stringify({ assetType: "Bond", name: "Soak", description: "long-run asset" });

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A process's memory in MB (0 once it is gone): its proportional set size (`Pss` in
 * `/proc/<pid>/smaps_rollup`), which splits pages shared between processes among them. PostgreSQL's
 * backends all map its shared buffers: summed resident sizes counted those pages once per backend.
 */
function memoryMb(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** Pids of the processes whose command line contains `needle`. */
function pidsMatching(needle: string): number[] {
  const out = spawnSync("pgrep", ["-f", needle], { encoding: "utf8" }).stdout ?? "";
  return out
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

/** PostgreSQL's processes: the postmaster started on the data directory and its children. */
function postgresPids(dataDir: string): number[] {
  const postmasters = pidsMatching(`postgres.*${dataDir}`);
  const children = postmasters.flatMap((pid) =>
    (spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).stdout ?? "")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map(Number),
  );
  return [...new Set([...postmasters, ...children])];
}

async function waitForHealth(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    const ok = await fetch(`${baseUrl}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error("the service did not answer /healthz in 5 minutes");
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as never };
}

export async function runLongRunBench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "rwa-soak-"));
  const [port, anvilPort, pgPort] = [await freePort(), await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  console.log(
    `Starting the service as npm start does (embedded chain and database in ${dataDir})...`,
  );
  const child = spawn(process.execPath, ["--import", "tsx", "relayer/src/main.ts"], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      RPC_URL: "",
      DATABASE_URL: "",
      DATA_DIR: dataDir,
      PORT: String(port),
      ANVIL_PORT: String(anvilPort),
      EMBEDDED_PG_PORT: String(pgPort),
      API_KEY_RATE_LIMIT_PER_MINUTE: "1000000",
      LOG_LEVEL: "warn",
      CONSOLE_BUILD: "off",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const provider = new JsonRpcProvider(`http://127.0.0.1:${anvilPort}`, 1236, {
    staticNetwork: true,
  });
  try {
    await waitForHealth(baseUrl, child);
    const secrets = await readDevSecrets(dataDir);
    const adminToken = secrets.adminToken!;
    const deployment = await loadDeployment(path.join(dataDir, "deployments", "1236.json"));
    const anvilPid = pidsMatching(`anvil.*--port ${anvilPort}`)[0];
    console.log("Chain limit (100 raw wallets, signed in advance, sent at once):");
    const limit = await chainLimit(
      provider,
      `http://127.0.0.1:${anvilPort}`,
      deployment.addresses.assetToken,
    );
    const rate = Math.max(1, Math.round(limit * LOAD));
    console.log(`  ${limit.toFixed(1)} mints/s; the run offers ${rate}/s (${LOAD}×)`);

    console.log(`Registering ${ORGS} organizations...`);
    const keys: string[] = [];
    const register = async (i: number) => {
      const res = await post(
        `${baseUrl}/api/enterprise/register`,
        { "x-admin-token": adminToken },
        { orgName: `Soak ${i}`, plan: "enterprise" },
      );
      if (res.status !== 200)
        throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
      const org = res.body as { apiKey: string; walletAddress: string };
      await provider.send("anvil_setBalance", [org.walletAddress, toBeHex(parseEther("1000000"))]);
      keys.push(org.apiKey);
    };
    for (let i = 0; i < ORGS; i += 10)
      await Promise.all(Array.from({ length: Math.min(10, ORGS - i) }, (_, j) => register(i + j)));
    const token = AssetToken__factory.connect(deployment.addresses.assetToken, provider);
    const supplyBefore = await token.totalSupply();

    const accepted = new Set<string>();
    interface Answer {
      at: number;
      ms: number;
      status: number;
    }
    let minute: Answer[] = [];
    const pending = new Set<Promise<void>>();
    const send = (key: string, due: number) => {
      const p = fetch(`${baseUrl}/api/v1/write/issue-asset`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json", prefer: "respond-async" },
        body: BODY,
      })
        .then(async (res) => {
          const body = (await res.json().catch(() => undefined)) as
            | { transactionId?: string }
            | undefined;
          if (res.status === 202 && body?.transactionId !== undefined)
            accepted.add(body.transactionId);
          minute.push({ at: due, ms: performance.now() - due, status: res.status });
        })
        .catch(() => {
          minute.push({ at: due, ms: performance.now() - due, status: 0 });
        });
      pending.add(p);
      void p.finally(() => pending.delete(p));
    };

    console.log(
      `\n${MINUTES} min of open arrivals at ${rate}/s over ${ORGS} orgs (a plain fetch client):`,
    );
    console.log(
      "minute   202 p50 ms  202 p99 ms  worst second's p99 ms  seconds over 100 ms    429  socket  minted/s  blocks  backlog  relayer MB  anvil MB  postgres MB",
    );
    const t0 = performance.now();
    const total = Math.round(rate * MINUTES * 60);
    let sent = 0;
    let minuteIndex = 0;
    let supplyAtMinute = supplyBefore;
    let blockAtMinute = await provider.getBlockNumber();
    let nextReport = t0 + 60_000;
    while (sent < total) {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - t0) / 1000) * rate) + 1);
      for (; sent < due; sent++) send(keys[sent % keys.length]!, t0 + (sent / rate) * 1000);
      if (now >= nextReport || sent >= total) {
        const answers = minute;
        minute = [];
        minuteIndex++;
        nextReport += 60_000;
        const ok = answers.filter((a) => a.status === 202).map((a) => a.ms);
        // The p99 of each second of the minute, by when the request was due: one stall shows as
        // a few dear seconds, a slow minute as many.
        const bySecond = new Map<number, number[]>();
        for (const a of answers) {
          if (a.status !== 202) continue;
          const second = Math.floor((a.at - t0) / 1000);
          const list = bySecond.get(second) ?? [];
          list.push(a.ms);
          bySecond.set(second, list);
        }
        const secondP99s = [...bySecond.values()].map((ms) => percentile(ms, 99));
        const supply = await token.totalSupply();
        // Blocks mined in the minute: anvil rebuilds its state root from all of its storage at
        // every block, so its blocks slow down as a long run's mints pile up (docs/scaling.md).
        const block = await provider.getBlockNumber();
        const blocks = block - blockAtMinute;
        blockAtMinute = block;
        const mintedPerSecond = Number(supply - supplyAtMinute) / 60;
        supplyAtMinute = supply;
        const backlog = accepted.size - Number(supply - supplyBefore);
        const postgres = postgresPids(dataDir).reduce((sum, pid) => sum + memoryMb(pid), 0);
        console.log(
          [
            String(minuteIndex).padStart(6),
            percentile(ok, 50).toFixed(0).padStart(11),
            percentile(ok, 99).toFixed(0).padStart(11),
            Math.max(0, ...secondP99s)
              .toFixed(0)
              .padStart(22),
            String(secondP99s.filter((p) => p > 100).length).padStart(20),
            String(answers.filter((a) => a.status === 429).length).padStart(6),
            String(answers.filter((a) => a.status === 0).length).padStart(7),
            mintedPerSecond.toFixed(1).padStart(9),
            String(blocks).padStart(7),
            String(backlog).padStart(8),
            memoryMb(child.pid!).toFixed(0).padStart(11),
            (anvilPid === undefined ? Number.NaN : memoryMb(anvilPid)).toFixed(0).padStart(9),
            postgres.toFixed(0).padStart(12),
          ].join(" "),
        );
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all([...pending]);
    console.log("\nWaiting for the backlog to be minted...");
    const expected = BigInt(accepted.size);
    const deadline = Date.now() + 15 * 60_000;
    while ((await token.totalSupply()) - supplyBefore < expected && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2_000));
    const minted = (await token.totalSupply()) - supplyBefore;
    console.log(
      `Accepted ${accepted.size}; minted ${minted}: ${minted === expected ? "every accepted write minted once" : "MISMATCH"}`,
    );
  } finally {
    provider.destroy();
    child.kill("SIGINT");
    await new Promise((r) => child.once("exit", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
