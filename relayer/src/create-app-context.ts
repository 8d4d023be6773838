import { Wallet } from "ethers";
import type { Logger } from "pino";
import { RpcClient } from "./chain/rpc/rpc-client.js";
import { RpcClientProvider } from "./chain/rpc/rpc-provider.js";
import { registerRpcMetrics } from "./chain/rpc/rpc-metrics.js";
import { Engine, type EngineOptions } from "./engine/engine.js";
import type { ContractAddresses } from "./chain/contracts/bindings.js";
import type { AppContext, Config, Foundation } from "./context.js";
import type { Database } from "./db/client.js";
import { createIpfsTarget } from "./metadata/create-ipfs-target.js";
import { createMetrics, registerCountMetric } from "./metrics.js";
import { createCoinPriceService } from "./reads/coin-price.js";
import { createSigners } from "./wallets/create-signers.js";
import { AesGcmKeyStore, type KeyStore } from "./wallets/key-store.js";
import type { SignerRouter } from "./wallets/signer-router.js";
import { createDeliveryProducer } from "./webhooks/delivery-queue.js";
import { AssetTypeCache } from "./writes/asset-type-cache.js";
import { backlogBound, countLiveWrites, WriteAdmission } from "./writes/admission.js";
import { DEFAULT_WRITE_ADMISSION } from "./config.js";
import { WRITE_LIMITS } from "./writes/limits.js";
import { ApiKeyCache } from "./auth/api-key-cache.js";
import { forgetPolicy } from "./policy/org-policy.js";
import { RateLimiter } from "./limits/rate-limiter.js";

/** What `createAppContext` needs: the pieces the caller already owns (started or opened). */
export interface CreateAppContextOptions {
  config: Config;
  logger: Logger;
  /** An open database (migrations already applied by the caller). */
  database: Database;
  /**
   * JSON-RPC URL(s) of the chain node: `config.rpcUrl` (comma-separated for failover), or the
   * embedded anvil's URL.
   */
  rpcUrl: string;
  /** Deployed contract addresses (from the deployment record). */
  contracts: ContractAddresses;
  /** True when the node is the embedded/local anvil; enables the dev faucet. */
  isLocalChain: boolean;
  /** Defaults to AES-256-GCM under `config.masterKey`. */
  keyStore?: KeyStore;
  /** Tuning of the transaction engine (tests and benchmarks shorten its timeouts). */
  engine?: EngineOptions;
  /** The signer backends, already opened; default: `createSigners` from `config.signer`. */
  signers?: SignerRouter;
}

/**
 * Builds the `AppContext` shared by every request handler and worker: the one place where the
 * process's services are constructed, used by the composition root (`start-relayer.ts`,
 * run by `main.ts`) and by the integration-test harness (`test/support/stack.ts`). Nothing else
 * creates a service or finds one by a hidden lookup: code reaches a service through `ctx`.
 *
 * Construction starts nothing (no timer, no connection) except the RPC health checks; the
 * workers are started by the caller (`ctx.engine.start()`, `startIndexer`, ...).
 *
 * The caller owns the lifecycle of what it passed in (database, anvil); call `disposeAppContext`
 * to release what this function created and close the database.
 *
 * @example
 * // start-relayer.ts: after starting/locating anvil and PostgreSQL and loading the deployment record
 * const database = createDatabase(databaseUrl);
 * await runMigrations(database);
 * const ctx = createAppContext({ config, logger, database, rpcUrl, contracts, isLocalChain: !config.rpcUrl });
 * const server = createApp(ctx).listen(config.port, config.host);
 * // on shutdown: server.close(); await disposeAppContext(ctx);
 */
export function createAppContext(options: CreateAppContextOptions): AppContext {
  const { config, logger, database, rpcUrl, contracts, isLocalChain } = options;

  // Foundation: chain access and keys.
  const rpc = new RpcClient(rpcUrl, { maxBatch: config.rpcMaxBatch });
  rpc.startHealthChecks();
  const provider = new RpcClientProvider(rpc, config.chainId, {
    pollingIntervalMs: isLocalChain ? 250 : 1_000,
  });
  const operator = new Wallet(config.operatorPrivateKey, provider);
  const keyStore =
    options.keyStore ?? new AesGcmKeyStore(config.masterKey, config.masterKeyPrevious);
  const foundation: Foundation = {
    config,
    logger,
    database,
    keyStore,
    rpc,
    provider,
    operator,
    contracts,
    isLocalChain,
  };

  // Services.
  const signers = options.signers ?? createSigners(config, keyStore, logger);
  const metrics = createMetrics();
  registerRpcMetrics(metrics.registry, rpc);
  registerCountMetric(
    metrics.registry,
    "rwa_db_statements_total",
    "SQL statements sent by this process, BEGIN and COMMIT included",
    () => database.statements(),
  );
  const rateLimiter = new RateLimiter(database.pool);
  registerCountMetric(
    metrics.registry,
    "rwa_rate_limit_leases_total",
    "Statements that leased a share of a rate-limit window from PostgreSQL",
    () => rateLimiter.leases,
  );
  const engine = new Engine(
    {
      rpc,
      database,
      signers,
      logger,
      contracts,
      chainId: config.chainId,
      maxFeePerGasWei: config.maxFeePerGasWei,
      confirmations: config.confirmations,
      stuckAfterBlocks: config.stuckAfterBlocks,
    },
    { registry: metrics.registry, ...options.engine },
  );
  // Read on every write, so a test (or an operator's reload) changes them at once.
  const admissionSettings = () => config.writeAdmission ?? DEFAULT_WRITE_ADMISSION;
  const admission = new WriteAdmission({
    perOrg: WRITE_LIMITS.acceptingPerOrg,
    concurrency: () => admissionSettings().acceptConcurrency,
    queueMax: backlogBound(rpc, admissionSettings, logger),
    countLive: countLiveWrites(database),
    drainSeconds: () => admissionSettings().queueDrainSeconds,
    syncDeadlineMs: () => admissionSettings().syncDeadlineMs,
  });
  registerCountMetric(
    metrics.registry,
    "rwa_write_admission_refused_total",
    "Writes refused with 429 at admission (per-org, busy or backlog bound), never recorded",
    () => admission.refused.org + admission.refused.busy + admission.refused.backlog,
  );
  const apiKeys = new ApiKeyCache();
  // Changes to an org (plan, suspension, a revoked key, its policy) reach every process's caches.
  engine.notifier.on("orgChanged", (orgId) => {
    apiKeys.forgetOrg(orgId);
    forgetPolicy(foundation.database, orgId);
  });
  return {
    ...foundation,
    metrics,
    engine,
    signers,
    assetTypes: new AssetTypeCache(engine.reader),
    ipfs: createIpfsTarget(config.ipfs, config.dataDir, logger),
    apiKeys,
    rateLimiter,
    coinPrice: createCoinPriceService(config.coinSymbol, config.coinPrice),
    deliveries: createDeliveryProducer(database),
    admission,
  };
}

/**
 * Releases what `createAppContext` created (the transaction engine if still running, the signer
 * backends, the IPFS node, the RPC timers) and closes the database pool.
 */
export async function disposeAppContext(ctx: AppContext): Promise<void> {
  await releaseAppServices(ctx);
  await ctx.database.close();
}

/** `disposeAppContext` without closing the database (for a caller that owns the pool). */
export async function releaseAppServices(ctx: AppContext): Promise<void> {
  await ctx.engine.stop();
  await ctx.rateLimiter.close();
  await ctx.signers.close();
  await ctx.ipfs.stop();
  ctx.rpc.stopHealthChecks();
  ctx.provider.destroy();
}
