import { JsonRpcProvider, Network, Wallet } from "ethers";
import type { Logger } from "pino";
import type { AppContext, Config, ContractAddresses } from "../context.js";
import type { Database } from "../db/client.js";
import { AesGcmKeyStore, type KeyStore } from "../wallets/key-store.js";

/** What `createAppContext` needs: the pieces the caller already owns (started or opened). */
export interface CreateAppContextOptions {
  config: Config;
  logger: Logger;
  /** An open database (migrations already applied by the caller). */
  database: Database;
  /** JSON-RPC URL of the chain node: `config.rpcUrl`, or the embedded anvil's URL. */
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
 * provider, operator signer and key store are constructed, used by both the composition root
 * (`relayer/src/main.ts`) and the integration-test harness (`test/support/stack.ts`).
 *
 * The caller owns the lifecycle of what it passed in (database, anvil); call `disposeAppContext`
 * to release what this function created (the provider's polling timers) and close the database.
 *
 * The provider uses a static network (`config.chainId`): ethers then never retries network
 * detection forever when the node is down, and calls fail fast (mapped to 503 `RPC unavailable`).
 * Its request cache is disabled (`cacheTimeout: -1`) so nonce and balance reads are always fresh.
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
  // cacheTimeout -1: ethers otherwise answers an identical call made within 250 ms from a cache,
  // so two pending-nonce reads in a row could return the same (stale) nonce.
  const provider = new JsonRpcProvider(rpcUrl, Network.from(config.chainId), {
    staticNetwork: true,
    cacheTimeout: -1,
  });
  provider.pollingInterval = isLocalChain ? 250 : 1_000;
  const operator = new Wallet(config.operatorPrivateKey, provider);
  const keyStore = options.keyStore ?? new AesGcmKeyStore(config.masterKey);
  return { config, logger, database, keyStore, provider, operator, contracts, isLocalChain };
}

/** Releases what `createAppContext` created (provider timers) and closes the database pool. */
export async function disposeAppContext(ctx: AppContext): Promise<void> {
  ctx.provider.destroy();
  await ctx.database.close();
}
