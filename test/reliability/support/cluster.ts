import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readlinkSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { ensureArtifacts } from "../../../deploy/artifacts.js";
import { deployAll } from "../../../deploy/deploy.js";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import { startDeployedAnvil, writeDeploymentRecord } from "../../support/chain-state.js";
import { httpRequest, type ApiCallOptions, type ApiResponse } from "../../support/http-request.js";
import { startIntervalMining } from "../../support/interval-mining.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "../../support/postgres.js";
import { killAll, spawnRelayer, type RelayerProcess } from "../../relayer/start/relayer-process.js";
import { INDEXER_LOCK_ID } from "../../../relayer/src/indexer/start-indexer.js";

/**
 * Reliability harness: one anvil (1 s blocks by default), one database, the contracts deployed,
 * and any number of real relayer processes (`relayer/src/main.ts`, what `npm start` runs) on
 * them, each with its engine, indexer and webhook workers.
 *
 * @example
 * const cluster = await startCluster();
 * after(() => cluster.stop());
 * const [a, b] = await Promise.all([cluster.spawn(), cluster.spawn()]);
 */

/** Response of `call`: status, parsed JSON (or text) and headers. */
export type HttpResult = ApiResponse;

/** Options of one `call`; `timeoutMs` defaults to 30 s. */
export type CallOptions = ApiCallOptions;

/** One HTTP request (test/support/http-request.ts) that gives up after 30 s unless told otherwise. */
export function call(
  baseUrl: string,
  method: string,
  urlPath: string,
  options: CallOptions = {},
): Promise<HttpResult> {
  return httpRequest(baseUrl, method, urlPath, {
    ...options,
    timeoutMs: options.timeoutMs ?? 30_000,
  });
}

/** A relayer process of the cluster. */
export interface ClusterRelayer {
  name: string;
  process: RelayerProcess;
  pid: number;
  baseUrl: string;
  /** `call` on this relayer's base URL. */
  call(method: string, urlPath: string, options?: CallOptions): Promise<HttpResult>;
  /** Everything the process printed (stdout and stderr). */
  output(): string;
}

/** An organization registered through the API. */
export interface ClusterOrg {
  orgId: string;
  apiKey: string;
  keyId: string;
  walletAddress: string;
  scopes: string[];
}

/** A running cluster; `stop()` kills every process it started and drops the database. */
export interface Cluster {
  rpcUrl: string;
  anvil: AnvilHandle;
  database: TestDatabase;
  /** A pg pool on the cluster's database, for checks. */
  pool: pg.Pool;
  adminToken: string;
  masterKey: string;
  env: Record<string, string>;
  contracts: { assetToken: string; marketplace: string; assetTypeRegistry: string };
  relayers: ClusterRelayer[];
  /** Starts one more relayer process (extra env merged in); resolves once it serves. */
  spawn(extraEnv?: Record<string, string>): Promise<ClusterRelayer>;
  /** Registers an org through `relayer` (the first one by default). */
  registerOrg(relayer?: ClusterRelayer, scopes?: string[]): Promise<ClusterOrg>;
  /**
   * Subscribes `org` to webhook `events` at `url` through `relayer`'s API; rejects unless it
   * answers 200. The answer's body carries the webhook id and, without `secret`, the generated one.
   */
  subscribeWebhook(
    relayer: ClusterRelayer,
    org: ClusterOrg,
    webhook: { url: string; events: string[]; secret?: string },
  ): Promise<HttpResult>;
  stop(): Promise<void>;
}

/** Options of `startCluster`. */
export interface ClusterOptions {
  /** Seconds between anvil blocks (default 1). */
  blockTime?: number;
  /** Extra environment for every relayer process. */
  env?: Record<string, string>;
  /** Extra anvil arguments (e.g. `["--base-fee", "0"]`). */
  anvilArgs?: string[];
}

/** Starts anvil, a fresh database and the contracts; relayers are added with `spawn`. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const root = mkdtempSync(path.join(os.tmpdir(), "rwa-reliability-"));
  const blockTime = options.blockTime ?? 1;
  const deploymentsFile = path.join(root, "deployments", "1236.json");
  // The default anvil starts from the run's saved deployment (test/support/chain-state.ts), with
  // its record where the relayers read it; other anvil arguments get a deploy of their own. Both
  // on automine (each deploy transaction would wait for a block), then interval mining.
  const [{ anvil, deployment }, database] = await Promise.all([
    findFreePort().then(async (port) => {
      if (options.anvilArgs === undefined || options.anvilArgs.length === 0) {
        const saved = await startDeployedAnvil({ port });
        writeDeploymentRecord(deploymentsFile, saved.deploymentJson);
        return saved;
      }
      await ensureArtifacts({ mode: "auto" });
      const started = await startAnvil({
        port,
        blockTime: 0,
        reuseExisting: false,
        extraArgs: options.anvilArgs,
      });
      const deployed = await deployAll({
        rpcUrl: started.rpcUrl,
        deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
        outFile: deploymentsFile,
        log: () => {},
      }).catch(async (error: unknown) => {
        await started.stop();
        throw error;
      });
      return { anvil: started, deployment: deployed.deployment };
    }),
    createTestDatabase(),
  ]);
  if (blockTime > 0) await startIntervalMining(anvil.rpcUrl, blockTime);
  const adminToken = `ent_admin_${randomBytes(32).toString("hex")}`;
  const masterKey = randomBytes(32).toString("hex");
  const env: Record<string, string> = {
    RPC_URL: anvil.rpcUrl,
    DATABASE_URL: database.url,
    ADMIN_TOKEN: adminToken,
    MASTER_KEY: masterKey,
    OPERATOR_PRIVATE_KEY: ANVIL_DEV_PRIVATE_KEY,
    DEPLOYMENTS_FILE: deploymentsFile,
    DATA_DIR: path.join(root, "data"),
    PORT: "0",
    DEV_FAUCET_AMOUNT: "100",
    WEBHOOK_ALLOW_LOCAL: "true",
    API_KEY_RATE_LIMIT_PER_MINUTE: "100000",
    CONSOLE_BUILD: "off",
    ...options.env,
  };
  const pool = new pg.Pool({ connectionString: database.url, max: 3 });
  pool.on("error", () => {});
  const relayers: ClusterRelayer[] = [];

  const spawn = async (extraEnv: Record<string, string> = {}): Promise<ClusterRelayer> => {
    const proc = spawnRelayer({ ...env, ...extraEnv });
    const name = `relayer-${relayers.length + 1}`;
    const relayer: ClusterRelayer = {
      name,
      process: proc,
      pid: proc.child.pid ?? -1,
      baseUrl: "",
      call: (method, urlPath, options) => call(relayer.baseUrl, method, urlPath, options),
      output: () => proc.output(),
    };
    relayers.push(relayer);
    const match = await proc.waitFor(/Base URL\s+(http:\/\/\S+)/, 60_000);
    await proc.waitFor(/Press Ctrl-C to stop/, 10_000);
    relayer.baseUrl = match[1] ?? "";
    return relayer;
  };

  const registerOrg = async (
    relayer: ClusterRelayer | undefined = relayers[0],
    scopes?: string[],
  ): Promise<ClusterOrg> => {
    if (relayer === undefined) throw new Error("no relayer running");
    const body: Record<string, unknown> = {
      orgName: `Reliability ${randomBytes(3).toString("hex")}`,
      plan: "enterprise",
    };
    if (scopes !== undefined) body.scopes = scopes;
    const res = await relayer.call("POST", "/api/enterprise/register", {
      adminToken,
      body,
    });
    if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
    return res.body as ClusterOrg;
  };

  return {
    rpcUrl: anvil.rpcUrl,
    anvil,
    database,
    pool,
    adminToken,
    masterKey,
    env,
    contracts: deployment.addresses,
    relayers,
    spawn,
    registerOrg,
    async subscribeWebhook(relayer, org, webhook) {
      const res = await relayer.call("POST", "/api/enterprise/webhooks", {
        apiKey: org.apiKey,
        body: webhook,
      });
      if (res.status !== 200) throw new Error(`webhook failed: ${res.status} ${res.text}`);
      return res;
    },
    async stop() {
      for (const relayer of relayers) {
        const child = relayer.process.child;
        if (child.exitCode === null && child.signalCode === null) {
          killAll(relayer.process);
          await relayer.process.exited;
        }
      }
      await pool.end().catch(() => {});
      await anvil.stop().catch(() => {});
      await database.drop().catch(() => {});
      await stopTestServer().catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Resolves when `check` returns a value other than undefined; rejects after `timeoutMs`. */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Local TCP ports of the sockets process `pid` has open to remote port `to` (Linux /proc): lets a
 * test tell which process owns a PostgreSQL backend (its `client_port` in pg_stat_activity). The
 * far end matters: Linux reuses an ephemeral port for connections to different servers, so one
 * process's socket to anvil can share its local port with another's connection to PostgreSQL.
 */
export function localPortsOf(pid: number, to: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m?.[1] !== undefined) inodes.add(m[1]);
    } catch {
      // fd closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ["tcp", "tcp6"]) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      const [local, remote, inode] = [cols[1], cols[2], cols[9]];
      if (local === undefined || remote === undefined || inode === undefined) continue;
      if (!inodes.has(inode) || parseInt(remote.split(":")[1] ?? "0", 16) !== to) continue;
      ports.add(parseInt(local.split(":")[1] ?? "0", 16));
    }
  }
  return ports;
}

/**
 * Which live relayers' connections hold the indexer's advisory lock (by name; "unknown" for a
 * holder that is none of them): the one process that indexes.
 */
export async function indexerLockHolders(cluster: Cluster): Promise<string[]> {
  const { rows } = await cluster.pool.query<{ client_port: number }>(
    `SELECT a.client_port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [INDEXER_LOCK_ID],
  );
  const alive = cluster.relayers.filter(
    (r) => r.process.child.exitCode === null && !r.process.child.signalCode,
  );
  return rows.map(
    (row) =>
      alive.find((r) => localPortsOf(r.pid, postgresPortOf(cluster)).has(row.client_port))?.name ??
      "unknown",
  );
}

/** The TCP port of the cluster's PostgreSQL server (the far end of every relayer's pool). */
export function postgresPortOf(cluster: Cluster): number {
  return Number(new URL(cluster.database.url).port || 5432);
}
