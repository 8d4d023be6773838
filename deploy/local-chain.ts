import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureArtifacts, PROJECT_ROOT } from "./artifacts.js";
import { DeployError } from "./errors.js";
import { LOCAL_CHAIN_ID, probeNode, rpcRequest, type NodeInfo } from "./rpc.js";

/** Options of `startAnvil`. */
export interface StartAnvilOptions {
  /** TCP port; default 8545. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Chain id; default 1236. */
  chainId?: number;
  /** Seconds between blocks; default 1. 0 means automine (one block per transaction, for tests). */
  blockTime?: number;
  /**
   * The hardfork to run (`anvil --hardfork`: "berlin", "london", "shanghai", "cancun", ...);
   * default anvil's own (the latest). Older ones imitate older private chains: no PUSH0 before
   * shanghai, no base fee before london.
   */
  hardfork?: string;
  /** More anvil arguments, e.g. `["--base-fee", "0", "--gas-price", "0"]` for a free-gas chain. */
  extraArgs?: readonly string[];
  /** File to load state from at start and dump it to on exit (`anvil --state`); omit for none. */
  stateFile?: string;
  /** Also dump state every N seconds (`--state-interval`), so a hard kill loses at most N s. */
  stateIntervalSeconds?: number;
  /**
   * When the port already answers as an anvil with the same chain id, use it instead of failing
   * (default true). `stop()` then leaves that node running, since this process did not start it.
   */
  reuseExisting?: boolean;
  /** Milliseconds to wait for the node to answer; default 20000. */
  readyTimeoutMs?: number;
  /** Progress lines; default silent. */
  log?: (line: string) => void;
  /** Forward anvil's own output to `log` (it prints every block and transaction). */
  verbose?: boolean;
  /**
   * Run anvil in a process group of its own (default false), so a terminal's Ctrl-C reaches only
   * this process, which then stops anvil after its own work (`npm start`). Tests leave it in
   * their group, so an interrupted test run takes its anvils with it.
   */
  ownProcessGroup?: boolean;
  /**
   * Mine the `blockTime` blocks from this process (anvil `--no-mining`, and `evm_mine` on a
   * timer) instead of by anvil's own interval; default false. anvil 1.7 keeps 1,500 blocks'
   * states in memory, whatever `--prune-history N` says, when its own block time is under 3 s
   * (`update_interval_mine_block_time` in its `mem/storage.rs`), and each kept state is a whole
   * copy of the chain's state: a long run at volume then grows by gigabytes. Paced from outside,
   * the `--prune-history` bound holds (docs/scaling.md, "A long run").
   */
  pacedBlocks?: boolean;
}

/** A running (or reused) anvil node. */
export interface AnvilHandle {
  rpcUrl: string;
  chainId: number;
  /** False when an already running anvil was reused. */
  started: boolean;
  /** The anvil process id (undefined when reused). */
  pid: number | undefined;
  /** Sends SIGTERM (anvil dumps its state on exit) and waits for the process to end. */
  stop: () => Promise<void>;
}

/** The port is held by something that is not the expected anvil. */
export class PortInUseError extends DeployError {
  constructor(host: string, port: number, what: string) {
    super(`Port ${host}:${port} is already in use by ${what}`, {
      details: "Stop that process, or choose another port (ANVIL_PORT for npm start).",
    });
    this.name = "PortInUseError";
  }
}

/**
 * The native anvil binary. `node_modules/.bin/anvil` is a Node wrapper that re-raises SIGTERM on
 * itself right after forwarding it, so it exits before anvil has dumped its state and freed the
 * port; spawning the platform package's binary lets `stop()` wait for anvil itself.
 */
export function anvilBinary(root = PROJECT_ROOT): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const name = process.platform === "win32" ? "anvil.exe" : "anvil";
  const native = path.join(
    root,
    "node_modules",
    "@foundry-rs",
    `anvil-${process.platform}-${arch}`,
    "bin",
    name,
  );
  return existsSync(native) ? native : path.join(root, "node_modules", ".bin", "anvil");
}

/** Asks the OS for a free TCP port on `host`. */
export async function findFreePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("could not read the port of a probe server"));
      });
    });
  });
}

/**
 * Whether something accepts TCP connections on host:port (1 s at most).
 *
 * @example
 * await portIsOpen(8545) // false once anvil has stopped
 */
export async function portIsOpen(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts anvil from `node_modules/.bin/anvil` and waits until it answers `eth_chainId`.
 *
 * If the port is taken: an anvil with the same chain id is reused (unless `reuseExisting` is
 * false); anything else fails with `PortInUseError`.
 *
 * @example
 * const chain = await startAnvil({ port: await findFreePort(), blockTime: 0 });
 * try { ... chain.rpcUrl ... } finally { await chain.stop(); }
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilHandle> {
  const {
    port = 8545,
    host = "127.0.0.1",
    chainId = LOCAL_CHAIN_ID,
    blockTime = 1,
    hardfork,
    extraArgs = [],
    stateFile,
    stateIntervalSeconds,
    reuseExisting = true,
    readyTimeoutMs = 20_000,
    log = () => {},
    verbose = false,
    ownProcessGroup = false,
    pacedBlocks = false,
  } = options;
  const rpcUrl = `http://${host}:${port}`;

  if (await portIsOpen(port, host)) {
    let info: NodeInfo | undefined;
    try {
      info = await probeNode(rpcUrl, 2_000);
    } catch {
      throw new PortInUseError(host, port, "a process that does not answer JSON-RPC");
    }
    if (!info.isAnvil || info.chainId !== chainId) {
      const client = info.clientVersion === "" ? "a JSON-RPC node" : info.clientVersion;
      throw new PortInUseError(host, port, `${client} with chain id ${info.chainId}`);
    }
    if (!reuseExisting) {
      throw new PortInUseError(host, port, `another anvil (chain id ${chainId})`);
    }
    log(`Reusing the anvil already running at ${rpcUrl} (chain id ${chainId}); not started here`);
    return { rpcUrl, chainId, started: false, pid: undefined, stop: async () => {} };
  }

  const bin = anvilBinary();
  if (!existsSync(bin)) {
    throw new DeployError(`anvil not found at ${bin}`, {
      details: "Run npm install (the @foundry-rs/anvil package provides it).",
    });
  }
  const args = ["--chain-id", String(chainId), "--host", host, "--port", String(port)];
  const paced = pacedBlocks && blockTime > 0;
  if (paced) args.push("--no-mining");
  else if (blockTime > 0) args.push("--block-time", String(blockTime));
  if (hardfork !== undefined) args.push("--hardfork", hardfork);
  args.push(...extraArgs);
  if (stateFile !== undefined) {
    await mkdir(path.dirname(path.resolve(stateFile)), { recursive: true });
    args.push("--state", path.resolve(stateFile));
    if (stateIntervalSeconds !== undefined) {
      args.push("--state-interval", String(stateIntervalSeconds));
    }
  }

  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], detached: ownProcessGroup });
  let tail: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (line.trim() === "") continue;
      tail = [...tail.slice(-40), line];
      if (verbose) log(`[anvil] ${line}`);
    }
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let spawnError: Error | undefined;
  child.once("error", (error) => (spawnError = error));
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(null));
  });

  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (spawnError !== undefined) {
      throw new DeployError(`anvil failed to start: ${spawnError.message}`, { cause: spawnError });
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new DeployError(`anvil exited during start-up (port ${port})`, {
        details: tail.slice(-15).join("\n"),
      });
    }
    const info = await probeNode(rpcUrl, 1_000).catch(() => undefined);
    if (info !== undefined) {
      if (info.chainId === chainId) break;
      await stopChild(child, exited);
      throw new DeployError(`anvil at ${rpcUrl} reports chain id ${info.chainId}, not ${chainId}`);
    }
    if (Date.now() > deadline) {
      await stopChild(child, exited);
      throw new DeployError(`anvil did not answer at ${rpcUrl} within ${readyTimeoutMs} ms`, {
        details: tail.slice(-15).join("\n"),
      });
    }
    await sleep(100);
  }

  const stopPacing = paced ? paceBlocks(rpcUrl, blockTime * 1000, log) : async () => {};
  const mining =
    blockTime > 0 ? `${blockTime} s blocks${paced ? ", paced by evm_mine" : ""}` : "automine";
  const state = stateFile === undefined ? "no state file" : `state ${stateFile}`;
  log(`anvil ${rpcUrl} (chain id ${chainId}, ${mining}, ${state}, pid ${child.pid})`);
  return {
    rpcUrl,
    chainId,
    started: true,
    pid: child.pid,
    stop: async () => {
      await stopPacing();
      await stopChild(child, exited);
    },
  };
}

/**
 * Mines a block every `everyMs` with `evm_mine` on a fixed schedule: a tick late by less than an
 * interval keeps the schedule, one later than that starts it again, and ticks never overlap. A
 * failed mine is logged once until one succeeds again. Returns the function that stops it
 * (after the mine in flight).
 */
function paceBlocks(rpcUrl: string, everyMs: number, log: (line: string) => void) {
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let due = Date.now() + everyMs;
  const tick = () => {
    inFlight = rpcRequest(rpcUrl, "evm_mine", [], 10_000).then(
      () => {
        failing = false;
      },
      (error: unknown) => {
        if (!failing && !stopped) log(`evm_mine failed: ${(error as Error).message}`);
        failing = true;
      },
    );
    void inFlight.then(() => {
      if (stopped) return;
      const now = Date.now();
      due += everyMs;
      if (due < now) due = now + everyMs; // a mine that took a whole interval: no catching up
      timer = setTimeout(tick, due - now);
    });
  };
  timer = setTimeout(tick, everyMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
  };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** `npm start` until the relayer exists: a persistent local chain with the contracts deployed. */
async function main(): Promise<void> {
  const { ANVIL_DEV_PRIVATE_KEY } = await import("./rpc.js");
  const dataDir = path.resolve(process.env.DATA_DIR ?? ".data");
  const port = Number(process.env.ANVIL_PORT ?? 8545);
  if (!Number.isInteger(port) || port <= 0 || port > 65_535) {
    throw new DeployError(`ANVIL_PORT must be a TCP port number, got "${process.env.ANVIL_PORT}"`);
  }
  const log = (line: string) => console.log(line);
  // deploy.js deploys through the generated typechain-types/: build them before importing it.
  await ensureArtifacts({ mode: "auto", log });
  const { deployAll } = await import("./deploy.js");

  const chain = await startAnvil({
    port,
    stateFile: path.join(dataDir, "chain", "state.json"),
    stateIntervalSeconds: 10,
    log,
  });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping anvil (state is saved on exit)...`);
    await chain.stop();
    console.log("Stopped.");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  try {
    // The local chain is disposable: when the contracts' ABI changed, redeploy instead of refusing.
    const { deployment, file } = await deployAll({
      rpcUrl: chain.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile: path.join(dataDir, "deployments", `${LOCAL_CHAIN_ID}.json`),
      force: true,
      log,
    });
    console.log("");
    console.log(`RPC URL            ${chain.rpcUrl}`);
    console.log(`Chain id           ${chain.chainId}`);
    console.log(`AssetTypeRegistry  ${deployment.addresses.assetTypeRegistry}`);
    console.log(`AssetToken         ${deployment.addresses.assetToken}`);
    console.log(`Marketplace        ${deployment.addresses.marketplace}`);
    console.log(`Deployment record  ${path.relative(process.cwd(), file)}`);
    console.log("");
    console.log(chain.started ? "Chain running; press Ctrl-C to stop." : "Press Ctrl-C to exit.");
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

if (
  process.argv[1] !== undefined &&
  import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href
) {
  main().catch((error: unknown) => {
    console.error(`Error: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof DeployError && error.details !== undefined) console.error(error.details);
    process.exit(1);
  });
}
