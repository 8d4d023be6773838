import { Wallet } from "ethers";
import type { Logger } from "pino";
import { RpcClient } from "../chain/rpc-client.js";
import { RpcClientProvider } from "../chain/rpc-provider.js";
import type { AppContext, Config, ContractAddresses } from "../context.js";
import type { Database } from "../db/client.js";
import { stopIpfsTarget } from "../metadata/ipfs-target-of.js";
import { AesGcmKeyStore, type KeyStore } from "../wallets/key-store.js";

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
}

/**
 * Builds the `AppContext` shared by every request handler and worker. The single place where the
 * RPC client (and the ethers provider over it), operator signer and key store are constructed,
 * used by both the composition root (`relayer/src/main.ts`) and the integration-test harness
 * (`test/support/stack.ts`).
 *
 * The caller owns the lifecycle of what it passed in (database, anvil); call `disposeAppContext`
 * to release what this function created (the provider's polling timers, the RPC health checks)
 * and close the database.
 *
 * @example
 * // main.ts (infra): after starting/locating anvil and PostgreSQL and loading the deployment record
 * const database = createDatabase(databaseUrl);
 * await runMigrations(database);
 * const ctx = createAppContext({ config, logger, database, rpcUrl, contracts, isLocalChain: !config.rpcUrl });
 * const server = createApp(ctx).listen(config.port, config.host);
 * // on shutdown: server.close(); await disposeAppContext(ctx);
 */
export function createAppContext(options: CreateAppContextOptions): AppContext {
  const { config, logger, database, rpcUrl, contracts, isLocalChain } = options;
  const rpc = new RpcClient(rpcUrl);
  rpc.startHealthChecks();
  const provider = new RpcClientProvider(rpc, config.chainId, {
    pollingIntervalMs: isLocalChain ? 250 : 1_000,
  });
  const operator = new Wallet(config.operatorPrivateKey, provider);
  const keyStore = options.keyStore ?? new AesGcmKeyStore(config.masterKey);
  return { config, logger, database, keyStore, rpc, provider, operator, contracts, isLocalChain };
}

/** Releases what `createAppContext` created (timers) and closes the database pool. */
export async function disposeAppContext(ctx: AppContext): Promise<void> {
  ctx.rpc.stopHealthChecks();
  ctx.provider.destroy();
  await stopIpfsTarget(ctx);
  await ctx.database.close();
}
