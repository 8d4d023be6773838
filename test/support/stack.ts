import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { deployAll } from "../../deploy/deploy.js";
import {
  findFreePort,
  startAnvil,
  type AnvilHandle,
  type StartAnvilOptions,
} from "../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../deploy/rpc.js";
import type { BuildMode } from "../../deploy/artifacts.js";
import {
  DEFAULT_COIN_PRICE_TTL_SECONDS,
  DEFAULT_CONFIRMATIONS,
  DEFAULT_RPC_MAX_BATCH,
  DEFAULT_WEBHOOK_BACKOFF_BASE_MS,
} from "../../relayer/src/config.js";
import type { AppContext, Config } from "../../relayer/src/context.js";
import { createDatabase, type Database } from "../../relayer/src/db/client.js";
import type { RegisteredOrganization } from "../../relayer/src/domain/org.js";
import { runMigrations } from "../../relayer/src/db/migrate.js";
import { createApp, type CreateAppOptions } from "../../relayer/src/http/app.js";
import { createLogger } from "../../relayer/src/logger.js";
import type { Metrics } from "../../relayer/src/metrics.js";
import { createAppContext, releaseAppServices } from "../../relayer/src/create-app-context.js";
import type { EngineOptions } from "../../relayer/src/engine/engine.js";
import { httpRequest, type ApiCallOptions, type ApiResponse } from "./http-request.js";
import { startDeployedAnvil } from "./chain-state.js";
import { startIntervalMining } from "./interval-mining.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "./postgres.js";

export type { ApiCallOptions, ApiResponse } from "./http-request.js";

/**
 * Integration-test harness: a real anvil, a fresh PostgreSQL database, the contracts deployed
 * and the relayer's HTTP app listening on 127.0.0.1 (random ports everywhere, so suites can run
 * side by side). The database is a copy of the run's migrated template (test/support/postgres.ts)
 * and the default anvil starts from the run's saved deployment (test/support/chain-state.ts), so
 * a stack costs neither a migration nor a deploy.
 *
 * @example
 * const stack = await startTestStack();
 * after(() => stack.stop());
 * const org = await stack.registerOrg({ plan: "enterprise" });
 * const res = await org.api("GET", "/api/enterprise/wallet");
 * assert.equal(res.status, 200);
 */

/** Options of `startTestStack`. */
export interface TestStackOptions {
  /**
   * Seconds between anvil blocks. Default 0 = automine (a block per transaction, receipts at
   * once: fast tests). Use 1 for realistic timing (the production-like default of `npm start`).
   */
  blockTime?: number;
  /** Overrides merged into the generated test config. */
  config?: Partial<Config>;
  /**
   * Contracts on the chain (default true). The default anvil starts from the run's saved
   * deployment (test/support/chain-state.ts); another chain (`startChain`, `anvil`), a dialect
   * proxy (`rpcProxy`) or an explicit `build` gets `deployAll` on it. `"fresh"` always deploys
   * with `deployAll`, through `relayerRpcUrl` and `rpcProxy`: for a test of the deploy itself
   * (the compatibility matrix deploys through its fault proxies).
   */
  deploy?: boolean | "fresh";
  /**
   * Contract build before deploying: "auto", "always", "never". Setting it deploys on this
   * stack's own anvil (`deployAll`) instead of starting from the saved deployment.
   */
  build?: BuildMode;
  /** pino level of the captured logs (default "debug"). */
  logLevel?: string;
  /** Also print captured log lines to stderr (default: env STACK_LOGS=1). */
  printLogs?: boolean;
  /** Tuning of the transaction engine (`createAppContext`'s `tx`). */
  engine?: EngineOptions;
  /** Extra routes for the app (benchmarks' constant-JSON ceiling routes). */
  extraRoutes?: CreateAppOptions["extraRoutes"];
  /**
   * Starts the chain node on the free port given, instead of the default anvil (another
   * hardfork, `--base-fee 0`, Hardhat's node: `test/relayer/chain/compat-matrix.test.ts`).
   */
  startChain?: (port: number) => Promise<AnvilHandle>;
  /** Contracts already deployed on the chain `startChain` gives (nothing is deployed then). */
  contracts?: {
    assetTypeRegistry: string;
    assetToken: string;
    marketplace: string;
    deployBlock: number;
  };
  /**
   * The RPC URL(s) the deploy and the relayer use, given the node's own URL: a fault proxy in
   * front of it, or a comma-separated failover list (`RPC_URL`). `stack.rpcUrl` stays the
   * node's own URL, for assertions on the chain. Default: the node's URL.
   */
  relayerRpcUrl?: (nodeUrl: string) => string | Promise<string>;
  /** An older or free-gas chain: `anvil --hardfork`, extra anvil arguments. */
  anvil?: Pick<StartAnvilOptions, "hardfork" | "extraArgs">;
  /**
   * Puts something between the relayer (and the deploy) and anvil, e.g. a dialect proxy
   * (test/support/dialect-proxy.ts); `stack.rpcUrl` stays anvil's own URL.
   */
  rpcProxy?: (anvilUrl: string) => Promise<{ url: string; close(): Promise<void> }>;
}

/** Response of `api`. `body` is parsed JSON when the response is JSON, else the text. */
/** Makes one HTTP request to the stack. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiCall = <T = any>(
  method: string,
  path: string,
  options?: ApiCallOptions,
) => Promise<ApiResponse<T>>;

/** Options of `registerOrg` (defaults: a unique name, plan "enterprise", default scopes). */
export interface RegisterOrgOptions {
  orgName?: string;
  scopes?: string[];
  plan?: "free" | "basic" | "pro" | "enterprise";
}

/** A registered organization and an `api` already carrying its key. */
export interface TestOrg extends RegisteredOrganization {
  /** `stack.api` with this org's `X-API-Key`. */
  api: ApiCall;
}

/** A running stack. Call `stop()` when done (in `after`). */
export interface TestStack {
  baseUrl: string;
  rpcUrl: string;
  ctx: AppContext;
  adminToken: string;
  metrics: Metrics;
  /** Every log line (JSON text) the relayer wrote, in order. */
  logs: string[];
  /** All captured logs as one string, for `includes` checks. */
  logText(): string;
  anvil: AnvilHandle;
  database: Database;
  testDatabase: TestDatabase;
  /** Plain HTTP call; `apiKey`/`adminToken` become headers. */
  api: ApiCall;
  /** `POST /api/enterprise/register` with the admin token; throws unless 200. */
  registerOrg(options?: RegisterOrgOptions): Promise<TestOrg>;
  stop(): Promise<void>;
}

let runningStacks = 0;

/** Starts anvil + database + contracts + HTTP app. Typical start time: 2-4 s. */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const logs: string[] = [];
  const printLogs = options.printLogs ?? process.env.STACK_LOGS === "1";
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch {
        // best effort: keep stopping the rest
      }
    }
    cleanups.length = 0;
  };

  runningStacks += 1;
  cleanups.push(async () => {
    runningStacks -= 1;
    if (runningStacks === 0) await stopTestServer();
  });

  try {
    const tmpDir = mkdtempSync(path.join(os.tmpdir(), "rwa-stack-"));
    cleanups.push(() => rmSync(tmpDir, { recursive: true, force: true }));

    const blockTime = options.blockTime ?? 0;
    const deploy = (options.deploy ?? true) !== false;
    // With interval mining, each deploy transaction would wait for the next block (about 6 s in
    // all): anvil starts on automine, the contracts go in, then it mines every `blockTime` s
    // (`evm_setIntervalMining`, the mode `--block-time` starts it in) before the relayer starts.
    const mineAfterDeploy = deploy && blockTime > 0 && options.startChain === undefined;
    // The default chain starts from the run's saved deployment (test/support/chain-state.ts)
    // instead of deploying again. A chain of another kind (a hardfork, a free-gas chain, another
    // node), a dialect proxy the deploy must go through, or an explicit build deploys itself.
    const savedChain =
      options.deploy !== "fresh" &&
      deploy &&
      options.startChain === undefined &&
      options.anvil === undefined &&
      options.rpcProxy === undefined &&
      options.build === undefined;
    const [{ anvil, deployment: savedDeployment }, testDatabase] = await Promise.all([
      findFreePort().then(async (port) =>
        options.startChain !== undefined
          ? { anvil: await options.startChain(port), deployment: undefined }
          : savedChain
            ? startDeployedAnvil({ port })
            : {
                anvil: await startAnvil({
                  port,
                  blockTime: mineAfterDeploy ? 0 : blockTime,
                  reuseExisting: false,
                  ...options.anvil,
                }),
                deployment: undefined,
              },
      ),
      createTestDatabase(),
    ]);
    cleanups.push(() => anvil.stop());
    cleanups.push(() => testDatabase.drop());
    let relayerRpcUrl =
      options.relayerRpcUrl === undefined
        ? anvil.rpcUrl
        : await options.relayerRpcUrl(anvil.rpcUrl);
    if (options.rpcProxy !== undefined) {
      const proxy = await options.rpcProxy(relayerRpcUrl);
      cleanups.push(() => proxy.close());
      relayerRpcUrl = proxy.url;
    }

    // The production logger (with its redaction), writing into `logs` instead of stdout.
    const logger = createLogger({
      level: options.logLevel ?? "debug",
      base: { service: "relayer-test" },
      destination: {
        write(line: string) {
          logs.push(line.trimEnd());
          if (printLogs) process.stderr.write(line);
        },
      },
    });

    const database = createDatabase(testDatabase.url, {
      onError: (err) => logger.warn({ err }, "pool error"),
    });
    cleanups.push(() => database.close());
    await runMigrations(database);

    let contracts = { assetTypeRegistry: "", assetToken: "", marketplace: "", deployBlock: 0 };
    if (options.contracts !== undefined) {
      contracts = options.contracts;
    } else if (savedDeployment !== undefined) {
      contracts = { ...savedDeployment.addresses, deployBlock: savedDeployment.blockNumber };
    } else if (deploy) {
      const { deployment } = await deployAll({
        rpcUrl: relayerRpcUrl,
        deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
        outFile: path.join(tmpDir, "deployments", "1236.json"),
        build: options.build ?? "auto",
        log: (line) => logger.debug({ component: "deploy" }, line),
      });
      contracts = { ...deployment.addresses, deployBlock: deployment.blockNumber };
    }
    if (mineAfterDeploy) await startIntervalMining(anvil.rpcUrl, blockTime);

    const adminToken = `ent_admin_${randomBytes(32).toString("hex")}`;
    const config: Config = {
      nodeEnv: "test",
      host: "127.0.0.1",
      port: 0,
      httpListeners: 1,
      dataDir: tmpDir,
      rpcUrl: relayerRpcUrl,
      databaseUrl: testDatabase.url,
      adminToken,
      masterKey: randomBytes(32).toString("hex"),
      operatorPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      chainId: 1236,
      coinSymbol: "COIN",
      webhookAllowLocal: true,
      devFaucetAmountWei: 10n * 10n ** 18n,
      logLevel: options.logLevel ?? "debug",
      // Production uses 60; tests make many calls per key. Lower it per test through
      // `stack.ctx.config.apiKeyRateLimitPerMinute` (read on every request) to test the limit.
      apiKeyRateLimitPerMinute: 100_000,
      // The development setting (docs/people.md "Signing in with a key"): many console tests
      // sign in with a key to reach an organization's screens quickly; people's sign-in has its
      // own tests, and test/relayer/people/people.test.ts checks the setting's default (off).
      consoleKeySignIn: true,
      bodyLimitBytes: 256 * 1024,
      confirmations: DEFAULT_CONFIRMATIONS,
      rpcMaxBatch: DEFAULT_RPC_MAX_BATCH,
      webhookBackoffBaseMs: DEFAULT_WEBHOOK_BACKOFF_BASE_MS,
      coinPrice: {
        fixedUsd: undefined,
        url: undefined,
        ttlSeconds: DEFAULT_COIN_PRICE_TTL_SECONDS,
      },
      ...options.config,
    };

    const ctx = createAppContext({
      config,
      logger,
      database,
      rpcUrl: relayerRpcUrl,
      contracts,
      isLocalChain: true,
      ...(options.engine === undefined ? {} : { engine: options.engine }),
    });
    cleanups.push(() => releaseAppServices(ctx));

    const { metrics } = ctx;
    const app = createApp(ctx, {
      ...(options.extraRoutes === undefined ? {} : { extraRoutes: options.extraRoutes }),
    });
    const server: Server = await new Promise((resolve, reject) => {
      const s = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(s)));
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const { port } = server.address() as AddressInfo;
    const baseUrl = `http://127.0.0.1:${port}`;

    const api: ApiCall = (method, urlPath, callOptions = {}) =>
      httpRequest(baseUrl, method, urlPath, callOptions);

    let orgCounter = 0;
    const registerOrg = async (registerOptions: RegisterOrgOptions = {}): Promise<TestOrg> => {
      orgCounter += 1;
      const request: Record<string, unknown> = {
        orgName:
          registerOptions.orgName ?? `Test Org ${orgCounter} ${randomBytes(2).toString("hex")}`,
        plan: registerOptions.plan ?? "enterprise",
      };
      if (registerOptions.scopes !== undefined) request.scopes = registerOptions.scopes;
      const res = await api("POST", "/api/enterprise/register", { adminToken, body: request });
      if (res.status !== 200) throw new Error(`registerOrg failed: ${res.status} ${res.text}`);
      const org = res.body as RegisteredOrganization;
      return {
        ...org,
        api: (method, urlPath, callOptions = {}) =>
          api(method, urlPath, { apiKey: org.apiKey, ...callOptions }),
      };
    };

    return {
      baseUrl,
      rpcUrl: anvil.rpcUrl,
      ctx,
      adminToken,
      metrics,
      logs,
      logText: () => logs.join("\n"),
      anvil,
      database,
      testDatabase,
      api,
      registerOrg,
      stop: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
