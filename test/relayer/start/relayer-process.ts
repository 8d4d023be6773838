import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { RpcClient } from "../../../relayer/src/chain/rpc/rpc-client.js";
import { REPO_ROOT } from "../../../relayer/src/config.js";

export { portIsOpen } from "../../../deploy/local-chain.js";

/**
 * Runs `relayer/src/main.ts` (what `npm start` runs) as a child process and reads its output, so
 * start-up tests exercise the real composition root, signals and exit codes.
 */

/** Variables a developer's shell or CI may set that would change what the relayer starts. */
const INHERITED_CONFIG = [
  "NODE_ENV",
  "RPC_URL",
  "DATABASE_URL",
  "ADMIN_TOKEN",
  "MASTER_KEY",
  "OPERATOR_PRIVATE_KEY",
  "PORT",
  "HOST",
  "DATA_DIR",
  "ANVIL_PORT",
  "EMBEDDED_PG_PORT",
  "DEPLOYMENTS_FILE",
  "DEV_FAUCET_AMOUNT",
  "LOG_LEVEL",
  "SIGNER",
  "PKCS11_MODULE",
  "PKCS11_TOKEN_LABEL",
  "PKCS11_PIN",
];

export interface RelayerProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects on exit or timeout. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts the relayer with a clean environment plus `env`. With `processGroup`, the relayer (or
 * npm, with `viaNpm`) leads a process group of its own, so `interruptGroup` can send SIGINT to
 * the whole group, as a terminal's Ctrl-C does.
 */
export function spawnRelayer(
  env: Record<string, string>,
  options: { processGroup?: boolean; viaNpm?: boolean } = {},
): RelayerProcess {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_CONFIG) delete base[name];
  // viaNpm: `npm start` itself, as a user or a process manager runs it (npm, then the relayer).
  const [command, args] =
    options.viaNpm === true
      ? ["npm", ["start"]]
      : [
          path.join(REPO_ROOT, "node_modules", ".bin", "node"),
          ["--import", "tsx", path.join(REPO_ROOT, "relayer", "src", "main.ts")],
        ];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...base, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.processGroup === true,
  });
  let output = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  return {
    child,
    output: () => output,
    exited,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output);
          if (match !== null) return finish(() => resolve(match));
          if (child.exitCode !== null || child.signalCode !== null) {
            finish(() =>
              reject(
                new Error(
                  `relayer exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output}`,
                ),
              ),
            );
          }
        };
        const timer = setTimeout(
          () =>
            finish(() =>
              reject(
                new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}:\n${output}`),
              ),
            ),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Resolves with the exit status, or rejects after `timeoutMs` (killing the child). */
export async function exitWithin(
  relayer: RelayerProcess,
  timeoutMs: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      killAll(relayer);
      reject(new Error(`relayer did not exit within ${timeoutMs} ms:\n${relayer.output()}`));
    }, timeoutMs);
  });
  try {
    const status = await Promise.race([relayer.exited, timeout]);
    return { ...status, ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process with this id exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Parses the banner's `Processes    relayer 1, anvil 2, postgres 3` line. */
export function parsePids(output: string): Record<string, number> {
  const line = /Processes\s+(.*)/.exec(output)?.[1] ?? "";
  const pids: Record<string, number> = {};
  for (const part of line.split(",")) {
    const [name, pid] = part.trim().split(/\s+/);
    if (name !== undefined && pid !== undefined) pids[name] = Number(pid);
  }
  return pids;
}

/** One JSON-RPC call through the relayer's client. */
export async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  return new RpcClient(rpcUrl).call<T>(method, params);
}

/** Pids of anvil and PostgreSQL from the start-up progress lines (printed before the banner). */
export function embeddedPidsFromProgress(output: string): number[] {
  const pids: number[] = [];
  const anvil = /anvil http:\S+ \(.*pid (\d+)\)/.exec(output);
  const postgres = /PostgreSQL on \S+, pid (\d+)/.exec(output);
  if (anvil?.[1] !== undefined) pids.push(Number(anvil[1]));
  if (postgres?.[1] !== undefined) pids.push(Number(postgres[1]));
  return pids;
}

/** Last resort for a test that failed mid-way: SIGKILL the relayer and what it started. */
export function killAll(relayer: RelayerProcess): void {
  for (const pid of embeddedPidsFromProgress(relayer.output())) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  relayer.child.kill("SIGKILL");
}

/** SIGINT to the relayer's whole process group (what Ctrl-C in a terminal does). */
export function interruptGroup(relayer: RelayerProcess): void {
  process.kill(-relayer.child.pid!, "SIGINT");
}
