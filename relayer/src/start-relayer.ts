import path from "node:path";
import { getAddress } from "ethers";
import { PROJECT_ROOT } from "../../deploy/artifacts.js";
import { deployAll } from "../../deploy/deploy.js";
import { loadDeployment, type LoadedDeployment } from "../../deploy/deployment-file.js";
import { DeployError } from "../../deploy/errors.js";
import { startAnvil, type AnvilHandle } from "../../deploy/local-chain.js";
import { isLocalAnvil, probeNode } from "../../deploy/rpc.js";
import {
  missingDevSecrets,
  parseEnv,
  resolveConfig,
  TARGET_CHAIN_ID,
  type EnvSettings,
} from "./config.js";
import type { ContractAddresses } from "./chain/contracts/bindings.js";
import type { AppContext, Config } from "./context.js";
import { createDatabase, type Database } from "./db/client.js";
import { runMigrations } from "./db/migrate.js";
import { BaseError } from "./errors.js";
import { listenShared } from "./http/listeners.js";
import { createLogger } from "./logger.js";
import { startOperatorAttemptSettler } from "./audit/settle-operator-attempts.js";
import { ensureConsoleBuilt } from "./console/build-console.js";
import * as httpApp from "./http/app.js";
import { startIndexer } from "./indexer/start-indexer.js";
import { createAppContext, disposeAppContext } from "./create-app-context.js";
import { AesGcmKeyStore } from "./wallets/key-store.js";
import { ensureDataDir, ensureDevSecrets, type GeneratedSecretName } from "./infra/dev-secrets.js";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "./infra/embedded-postgres.js";
import { startWebhookWorkers } from "./webhooks/start-webhook-workers.js";
import { startPinWorkers } from "./metadata/start-pin-workers.js";
import { describeMasterKeyCheck, verifyMasterKey } from "./infra/master-key-check.js";
import { verifySignerBackends } from "./infra/signer-backend-check.js";
import { createSigners } from "./wallets/create-signers.js";
import { redactUrl } from "./shared/redact-url.js";

/**
 * Recent block states the embedded anvil keeps in memory (`--prune-history`). anvil keeps each
 * as a whole copy of the chain's state, about 220 bytes per mint: at half the chain's rate a
 * copy is 51 MB after 30 minutes, so 16 copies are 0.8 GB where 128 would be 6.5 GB. What reads
 * state at a block reads one within a few blocks of the head (docs/scaling.md, "A long run").
 */
export const EMBEDDED_CHAIN_STATES = 16;
/**
 * Recent blocks whose transactions and receipts the embedded anvil keeps
 * (`--transaction-block-keeper`; only blocks that hold transactions count); older blocks keep
 * their headers only. It bounds the state file anvil writes every 10 s: with every block's
 * transactions it grew with the chain (287 MB after 5 minutes at half the chain's rate, and the
 * 202's p99 rose to 2 s in the minutes it was written); with 256 it stays near 250 MB at that
 * rate, and is far smaller when blocks hold a few transactions. What reads older history stops
 * with `HistoryPrunedError` (`chain/history.ts`) instead of reading nothing: `npm run reindex`
 * and the reconciliation after a restore (docs/scaling.md, "A long run").
 */
export const EMBEDDED_CHAIN_TX_BLOCKS = 256;

/** A start-up step failed; the message says what to do. */
export class StartupError extends BaseError {
  override name = "StartupError";
}

/** Options of `startRelayer`. */
export interface StartRelayerOptions {
  /** Environment to configure from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Human progress lines (start-up steps, banner); default `console.log`. */
  print?: (line: string) => void;
  /**
   * Aborts start-up between steps (a step already running finishes first); what was started is
   * stopped and `startRelayer` rejects with a `StartupError`.
   */
  signal?: AbortSignal;
  /** Told each embedded process id as soon as it exists, so a hard stop can kill it mid start-up. */
  onProcess?: (name: "anvil" | "postgres", pid: number) => void;
  /**
   * Told what start-up or stop is doing now ("Starting the indexer", "stopping PostgreSQL"), so a
   * second Ctrl-C can say what the stop is waiting for.
   */
  onStep?: (what: string) => void;
}

/** Where the admin token came from, for the banner. */
export type AdminTokenSource = "env" | "generated-now" | "secrets-file";

/** A started relayer. */
export interface RunningRelayer {
  ctx: AppContext;
  /** `http://host:port` the API listens on. */
  baseUrl: string;
  rpcUrl: string;
  adminTokenSource: AdminTokenSource;
  /** The dev secrets file, when one is used. */
  secretsFile: string | undefined;
  /** Process ids of the embedded services started by this process. */
  pids: { anvil: number | undefined; postgres: number | undefined };
  /** Stops everything in order (HTTP, workers, DB pool, PostgreSQL, anvil). Idempotent. */
  stop(): Promise<void>;
  /** Last resort after a stop timeout: SIGKILL the embedded services so none is orphaned. */
  forceKill(): void;
}

/** Runs one start-up step, printing what starts and how long it took. */
async function timedStep<T>(
  print: (line: string) => void,
  label: string,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  print(`• ${label}...`);
  const result = await run();
  print(`  ${label}: done in ${Math.round(performance.now() - started)} ms`);
  return result;
}

function displayHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Starts the whole service in this process tree: the embedded anvil (without RPC_URL), the
 * embedded PostgreSQL (without DATABASE_URL), migrations, the contract deployment (local chain)
 * or its record (RPC_URL), the master-key check, the AppContext and the HTTP server.
 *
 * Whatever was started is stopped again when a later step fails.
 *
 * @throws ConfigError, StartupError, DeployError and the embedded services' errors
 * @example
 * const relayer = await startRelayer({ env: process.env });
 * process.on("SIGINT", () => void relayer.stop());
 */
export async function startRelayer(options: StartRelayerOptions = {}): Promise<RunningRelayer> {
  const print = options.print ?? ((line: string) => console.log(line));
  const signal = options.signal;
  const step = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
    if (signal?.aborted === true) throw new StartupError("Start-up interrupted");
    options.onStep?.(label);
    return timedStep(print, label, run);
  };
  const startedAt = performance.now();
  const cleanups: Array<{ label: string; run: () => Promise<void> }> = [];
  const pids: RunningRelayer["pids"] = { anvil: undefined, postgres: undefined };
  const runCleanups = async (log: (line: string) => void) => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      const t0 = performance.now();
      options.onStep?.(`stopping ${cleanup.label}`);
      try {
        await cleanup.run();
        log(`  stopped ${cleanup.label} (${Math.round(performance.now() - t0)} ms)`);
      } catch (error) {
        log(
          `  stopping ${cleanup.label} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  };

  try {
    const settings = parseEnv(options.env ?? process.env);
    const { config, adminTokenSource, secretsFile, postgresPassword } =
      await resolveSecrets(settings);
    const logger = createLogger({ level: config.logLevel });
    print(`Starting the RWA relayer (${config.nodeEnv}, data in ${config.dataDir})`);
    if (config.rpcUrl !== undefined && settings.confirmations === undefined) {
      logger.warn(
        { confirmations: config.confirmations },
        "CONFIRMATIONS is not set: blocks count as final as soon as they are seen, right for an " +
          "instant-finality (QBFT/IBFT) chain; set CONFIRMATIONS on a Clique or proof-of-work chain",
      );
    }

    // Signer backends: the PKCS#11 token (when configured) is opened first, so that a missing
    // module, an unknown token or a wrong PIN stops the start before anything else is started.
    const keyStore = new AesGcmKeyStore(config.masterKey, config.masterKeyPrevious);
    const signers = await step("Opening the signer backends", () =>
      Promise.resolve().then(() => createSigners(config, keyStore, logger)),
    );
    cleanups.push({ label: "signer backends", run: () => signers.close() });

    // Chain -----------------------------------------------------------------------------------
    let chain: AnvilHandle | undefined;
    let rpcUrl = config.rpcUrl;
    if (rpcUrl === undefined) {
      chain = await step(`Starting anvil on 127.0.0.1:${settings.anvilPort}`, () =>
        startAnvil({
          port: settings.anvilPort,
          host: "127.0.0.1",
          chainId: TARGET_CHAIN_ID,
          blockTime: 1,
          stateFile: path.join(config.dataDir, "chain", "state.json"),
          // A hard kill then loses at most 10 s of blocks; a clean stop dumps everything.
          stateIntervalSeconds: 10,
          // The last EMBEDDED_CHAIN_STATES blocks' states in memory, not every block's since
          // genesis: unpruned, a 15-minute run at half the chain's rate took anvil from 31 MB to
          // 11.7 GB (issue 45). Blocks paced from here, or anvil keeps 1,500 states whatever
          // --prune-history says (`pacedBlocks`).
          pacedBlocks: true,
          extraArgs: [
            "--prune-history",
            String(EMBEDDED_CHAIN_STATES),
            "--transaction-block-keeper",
            String(EMBEDDED_CHAIN_TX_BLOCKS),
          ],
          // Ctrl-C reaches only the relayer, which stops anvil after its own work.
          ownProcessGroup: true,
          log: (line) => print(`  ${line}`),
        }),
      );
      const started = chain;
      pids.anvil = started.pid;
      if (started.pid !== undefined) options.onProcess?.("anvil", started.pid);
      cleanups.push({ label: "anvil", run: () => started.stop() });
      rpcUrl = started.rpcUrl;
    }
    const chainUrl = rpcUrl;
    const node = await step(`Checking the chain at ${redactUrl(chainUrl)}`, () =>
      probeNode(chainUrl, 5_000),
    );
    if (node.chainId !== TARGET_CHAIN_ID) {
      throw new StartupError(
        `Wrong chain: ${redactUrl(chainUrl)} reports chain id ${node.chainId}; this service runs on chain ${TARGET_CHAIN_ID}. ` +
          `Point RPC_URL at a chain ${TARGET_CHAIN_ID} node.`,
      );
    }
    const isLocalChain = config.nodeEnv !== "production" && isLocalAnvil(node);

    // Database --------------------------------------------------------------------------------
    let databaseUrl = config.databaseUrl;
    let embeddedPostgres: EmbeddedPostgresHandle | undefined;
    if (databaseUrl === undefined) {
      embeddedPostgres = await step("Starting embedded PostgreSQL", () =>
        startEmbeddedPostgres({
          dataDir: config.dataDir,
          password: postgresPassword!,
          port: settings.embeddedPostgresPort,
          log: (line) => print(`  ${line}`),
        }),
      );
      const started = embeddedPostgres;
      pids.postgres = started.pid;
      if (started.pid !== undefined) options.onProcess?.("postgres", started.pid);
      cleanups.push({ label: "PostgreSQL", run: () => started.stop() });
      print(
        `  PostgreSQL on 127.0.0.1:${started.port}, pid ${started.pid ?? "?"}${started.initialised ? " (new cluster)" : ""}`,
      );
      databaseUrl = started.url;
    }
    const database: Database = createDatabase(databaseUrl, {
      // Expected once during a Ctrl-C (PostgreSQL gets the signal too); otherwise a server restart.
      onError: (error) =>
        logger.warn(
          { code: (error as { code?: unknown }).code, error: error.message },
          "idle database connection closed",
        ),
    });
    let databaseOpen = true;
    cleanups.push({
      label: "database pool",
      run: async () => {
        if (databaseOpen) await database.close();
      },
    });
    await step("Applying database migrations", () => runMigrations(database));
    // Every connection of the pool open before the first request (`Database.warm`).
    await database.warm();

    // Master key ------------------------------------------------------------------------------
    const keyCheck = await step("Checking MASTER_KEY against the database", () =>
      verifyMasterKey(database, keyStore),
    );
    print(`  master key ${describeMasterKeyCheck(keyCheck)} (key id ${keyStore.keyId})`);
    if (keyCheck.status === "previous-ignored") {
      logger.warn(
        { previousKeyId: keyCheck.previous },
        "MASTER_KEY_PREVIOUS names a key retired by a completed rotation; it is not used: unset it",
      );
    }
    const walletBackends = await step("Checking the signer backends against the wallets", () =>
      verifySignerBackends(database, signers),
    );
    print(
      `  new wallets' keys: ${signers.newWallets}; existing: ${
        walletBackends
          .map((c) => `${c.wallets} ${c.backend}${c.token === undefined ? "" : ` ("${c.token}")`}`)
          .join(", ") || "none"
      }`,
    );

    // Contracts -------------------------------------------------------------------------------
    const deployment = await step("Locating the contracts", () =>
      locateContracts({
        settings,
        config,
        rpcUrl: chainUrl,
        embeddedChain: chain !== undefined,
        print,
      }),
    );
    const contracts: ContractAddresses = {
      assetTypeRegistry: deployment.addresses.assetTypeRegistry,
      assetToken: deployment.addresses.assetToken,
      marketplace: deployment.addresses.marketplace,
      deployBlock: deployment.blockNumber,
    };

    // Context and HTTP ------------------------------------------------------------------------
    // The context's config carries the URLs actually in use (embedded services included), so
    // workers that need their own connection (pg-boss, a second provider) can open one.
    const runtimeConfig: Config = { ...config, rpcUrl: chainUrl, databaseUrl };
    const ctx = createAppContext({
      config: runtimeConfig,
      logger,
      database,
      rpcUrl: chainUrl,
      contracts,
      isLocalChain,
      keyStore,
      signers,
    });
    databaseOpen = false; // disposeAppContext closes the pool from here on
    cleanups.push({
      label: "app context (provider, database pool)",
      run: () => disposeAppContext(ctx),
    });

    // RELAYER_ROLE (docs/scaling.md): `api` serves requests and leaves recorded writes to the
    // processes that run the engine; `worker` runs the engine, the indexer and the deliveries and
    // serves only /healthz and /metrics; `all` runs both halves.
    const role = settings.role;
    const serveApi = role !== "worker";
    const runWorkers = role !== "api";
    const app = serveApi ? httpApp.createApp(ctx) : httpApp.createWorkerApp(ctx);
    // Background workers, stopped (in reverse) after the HTTP server has closed and before the
    // database pool ends: transactions first (routes enqueue into it), then the indexer (which
    // writes webhook events), then webhook delivery.
    await step(
      runWorkers ? "Starting the engine" : "Following the chain head (no engine: RELAYER_ROLE=api)",
      () => ctx.engine.start({ sequencer: runWorkers }),
    );
    cleanups.push({ label: "engine", run: () => ctx.engine.stop() });
    if (runWorkers) {
      const indexer = await step("Starting the indexer", () => startIndexer(ctx));
      cleanups.push({ label: "indexer", run: () => indexer.stop() });
      const webhookWorkers = await step("Starting webhook delivery workers", () =>
        startWebhookWorkers(ctx),
      );
      cleanups.push({ label: "webhook workers", run: () => webhookWorkers.stop() });
      const pinWorkers = await step("Starting metadata pin workers", () => startPinWorkers(ctx));
      cleanups.push({ label: "metadata pin workers", run: () => pinWorkers.stop() });
      // Operator acts a killed relayer left without an outcome row (docs/audit-log.md "Acts on
      // chain"): settled in the background now and every 5 minutes.
      const settler = startOperatorAttemptSettler(ctx);
      cleanups.push({ label: "operator attempt settler", run: () => settler.stop() });
    }

    // Console: rebuild its static export when missing or stale; a failure only disables
    // /console (503 page), never the API. CONSOLE_BUILD=off skips the check.
    if (serveApi && settings.consoleBuild !== "off") {
      await step("Checking the console build", () => ensureConsoleBuilt({ print }));
    }

    const listeners = await step(`Listening on ${config.host}:${config.port}`, () =>
      listenShared(app, {
        port: config.port,
        host: config.host,
        count: config.httpListeners,
      }),
    );
    cleanups.push({ label: "HTTP server", run: () => listeners.close() });
    const { port } = listeners;
    const baseUrl = `http://${displayHost(config.host)}:${port}`;

    printBanner(print, {
      role,
      baseUrl,
      rpcUrl: chainUrl,
      chainLabel:
        chain !== undefined
          ? chain.started
            ? "embedded anvil"
            : "anvil already running"
          : "RPC_URL",
      databaseLabel:
        embeddedPostgres !== undefined
          ? `embedded PostgreSQL on 127.0.0.1:${embeddedPostgres.port} (data in ${embeddedPostgres.clusterDir})`
          : "DATABASE_URL",
      adminToken: config.adminToken,
      adminTokenSource,
      secretsFile,
      pids,
      seconds: (performance.now() - startedAt) / 1000,
    });
    logger.info(
      {
        baseUrl,
        chainId: TARGET_CHAIN_ID,
        contracts,
        isLocalChain,
        confirmations: config.confirmations,
      },
      "relayer started",
    );

    let stopping: Promise<void> | undefined;
    return {
      ctx,
      baseUrl,
      rpcUrl: chainUrl,
      adminTokenSource,
      secretsFile,
      pids,
      stop() {
        stopping ??= runCleanups(print);
        return stopping;
      },
      forceKill() {
        for (const pid of [pids.postgres, pids.anvil]) {
          if (pid === undefined) continue;
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      },
    };
  } catch (error) {
    if (cleanups.length > 0) {
      print("Start-up failed; stopping what was started:");
      await runCleanups(print);
    }
    throw error;
  }
}

/** Fills missing secrets from the dev secrets file (development only) and builds the Config. */
async function resolveSecrets(settings: EnvSettings): Promise<{
  config: Config;
  adminTokenSource: AdminTokenSource;
  secretsFile: string | undefined;
  postgresPassword: string | undefined;
}> {
  if (settings.nodeEnv === "production") {
    const config = resolveConfig(settings);
    return { config, adminTokenSource: "env", secretsFile: undefined, postgresPassword: undefined };
  }
  const needed: GeneratedSecretName[] = [...missingDevSecrets(settings)];
  if (settings.databaseUrl === undefined) needed.push("postgresPassword");
  if (needed.length === 0) {
    await ensureDataDir(settings.dataDir);
    return {
      config: resolveConfig(settings),
      adminTokenSource: "env",
      secretsFile: undefined,
      postgresPassword: undefined,
    };
  }
  const { file, secrets, generated } = await ensureDevSecrets(settings.dataDir, needed);
  const config = resolveConfig(settings, secrets);
  const adminTokenSource: AdminTokenSource =
    settings.adminToken !== undefined
      ? "env"
      : generated.includes("adminToken")
        ? "generated-now"
        : "secrets-file";
  return {
    config,
    adminTokenSource,
    secretsFile: file,
    postgresPassword: secrets.postgresPassword,
  };
}

/**
 * Local chain: deploy (or check) the contracts, recording them under DATA_DIR/deployments.
 * RPC_URL: read the record written by `npm run deploy` and check the code is on that chain.
 */
async function locateContracts(args: {
  settings: EnvSettings;
  config: Config;
  rpcUrl: string;
  embeddedChain: boolean;
  print: (line: string) => void;
}): Promise<LoadedDeployment> {
  const { settings, config, rpcUrl, embeddedChain, print } = args;
  if (embeddedChain) {
    const { deployment, status } = await deployAll({
      rpcUrl,
      deployerPrivateKey: config.operatorPrivateKey,
      outFile: path.join(config.dataDir, "deployments", `${TARGET_CHAIN_ID}.json`),
      expectedChainId: TARGET_CHAIN_ID,
      // The embedded chain is disposable: when the contracts changed, redeploy rather than refuse.
      force: true,
      log: (line) => print(`  ${line}`),
    });
    print(`  contracts ${status}`);
    return deployment;
  }
  const file =
    settings.deploymentsFile ?? path.join(PROJECT_ROOT, "deployments", `${TARGET_CHAIN_ID}.json`);
  let deployment: LoadedDeployment;
  try {
    deployment = await loadDeployment(file);
  } catch (cause) {
    throw new StartupError(
      `No usable deployment record at ${file}. With RPC_URL set the relayer does not deploy contracts: ` +
        `run \`npm run deploy\` first (or set DEPLOYMENTS_FILE).`,
      { cause },
    );
  }
  if (deployment.chainId !== TARGET_CHAIN_ID) {
    throw new StartupError(`${file} records chain ${deployment.chainId}, not ${TARGET_CHAIN_ID}`);
  }
  const code = await fetchCode(rpcUrl, deployment.addresses.assetToken);
  if (code === "0x") {
    throw new StartupError(
      `No contract at AssetToken ${getAddress(deployment.addresses.assetToken)} on ${redactUrl(rpcUrl)}: ${file} does not ` +
        `belong to this chain (was it reset?). Run \`npm run deploy\`.`,
    );
  }
  print(`  using ${file}`);
  return deployment;
}

async function fetchCode(rpcUrl: string, address: string): Promise<string> {
  const { rpcRequest } = await import("../../deploy/rpc.js");
  return rpcRequest<string>(rpcUrl, "eth_getCode", [address, "latest"], 5_000);
}

/**
 * Prints the "ready" banner. URLs go through `redactUrl`, so an RPC_URL carrying a user name,
 * password or API key never reaches the terminal; the admin token is shown only the one time it
 * is generated.
 */
export function printBanner(
  print: (line: string) => void,
  info: {
    role: EnvSettings["role"];
    baseUrl: string;
    rpcUrl: string;
    chainLabel: string;
    databaseLabel: string;
    adminToken: string;
    adminTokenSource: AdminTokenSource;
    secretsFile: string | undefined;
    pids: RunningRelayer["pids"];
    seconds: number;
  },
): void {
  // The admin token is printed only the one time it is generated; afterwards the banner says
  // where it is kept. Keys and the master key are never printed.
  const adminLine =
    info.adminTokenSource === "generated-now"
      ? `${info.adminToken}  (generated now; shown once, kept in ${info.secretsFile})`
      : info.adminTokenSource === "secrets-file"
        ? `kept in ${info.secretsFile} (adminToken)`
        : "from ADMIN_TOKEN";
  const processes = [`relayer ${process.pid}`];
  if (info.pids.anvil !== undefined) processes.push(`anvil ${info.pids.anvil}`);
  if (info.pids.postgres !== undefined) processes.push(`postgres ${info.pids.postgres}`);
  print("");
  const part = {
    all: "",
    api: " (API only: RELAYER_ROLE=api)",
    worker: " (worker: RELAYER_ROLE=worker)",
  };
  print(`RWA relayer ready in ${info.seconds.toFixed(1)} s${part[info.role]}`);
  print(
    `  Base URL     ${info.baseUrl}${info.role === "worker" ? " (/healthz and /metrics only)" : ""}`,
  );
  if (info.role !== "worker") print(`  Console      ${info.baseUrl}/console`);
  print(`  RPC URL      ${redactUrl(info.rpcUrl)} (${info.chainLabel}, chain ${TARGET_CHAIN_ID})`);
  print(`  Database     ${info.databaseLabel}`);
  print(`  Admin token  ${adminLine}`);
  print(`  Processes    ${processes.join(", ")}`);
  print("Press Ctrl-C to stop.");
  print("");
}

/** Formats a start-up failure for the terminal (message, then the hint of a DeployError). */
export function describeStartupError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const lines = [error.message];
  if (error instanceof DeployError && error.details !== undefined) lines.push(error.details);
  if (error instanceof StartupError && error.cause instanceof Error)
    lines.push(`cause: ${error.cause.message}`);
  return lines.join("\n");
}
