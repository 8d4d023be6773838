import type { Wallet as EthersWallet } from "ethers";
import type { RpcClient } from "./chain/rpc-client.js";
import type { ContractAddresses } from "./chain/contracts.js";
import type { RpcClientProvider } from "./chain/rpc-provider.js";
import type { Logger } from "pino";
import type { Database } from "./db/client.js";
import type { KeyStore } from "./wallets/key-store.js";
import type { TxRuntime } from "./chain/tx-runtime.js";
import type { IpfsTarget } from "./metadata/ipfs-target.js";
import type { Metrics } from "./metrics.js";
import type { CoinPriceService } from "./reads/coin-price.js";
import type { ApiKeyCache } from "./services/api-key-cache.js";
import type { DeliveryProducer } from "./webhooks/delivery-queue.js";
import type { AssetTypeCache } from "./writes/asset-type-cache.js";

/**
 * Validated configuration (built by `config.ts` from the environment, once, at start).
 * Secrets in here are never logged.
 */
export interface Config {
  nodeEnv: "development" | "production" | "test";
  host: string;
  port: number; // 0 = any free port
  dataDir: string; // absolute path of `.data/`
  /**
   * Set when the operator gave RPC_URL (one URL, or several comma-separated for failover);
   * undefined means "start the embedded anvil".
   */
  rpcUrl: string | undefined;
  /** Set when the operator gave DATABASE_URL; undefined means "start embedded PostgreSQL". */
  databaseUrl: string | undefined;
  adminToken: string; // ent_admin_<64 hex>
  masterKey: string; // 64 hex chars
  /** Key of the operator account that deploys, funds (dev only) and grants roles. */
  operatorPrivateKey: string;
  chainId: number; // 1236
  coinSymbol: string; // e.g. "COIN"; used in `stakedAmount minimum is 0.1 <symbol>`
  webhookAllowLocal: boolean;
  /** Bearer token that may read `/metrics` besides the admin token (METRICS_TOKEN). */
  metricsToken?: string | undefined;
  /** Origin (and path prefix) clients reach the service at, behind a proxy (PUBLIC_BASE_URL). */
  publicBaseUrl?: string | undefined;
  /** Dev faucet: fund new org wallets from the operator account (local chain only). */
  devFaucetAmountWei: bigint; // 0n disables
  logLevel: string;
  /** Console/session and rate-limit knobs. */
  apiKeyRateLimitPerMinute: number; // 60
  bodyLimitBytes: number; // e.g. 256 * 1024
  /** Operator ceiling on any attempt's maxFeePerGas (`MAX_FEE_PER_GAS_GWEI`); none when unset. */
  maxFeePerGasWei?: bigint | undefined;
  /** Where metadata documents are pinned; absent means the embedded IPFS node under `dataDir`. */
  ipfs?: IpfsSettings;
}

/** The IPFS target of metadata documents (`metadata/ipfs-target.ts`). */
export type IpfsSettings =
  | { kind: "embedded" }
  | { kind: "kubo"; url: string }
  | { kind: "pinning-service"; url: string; token: string };

/**
 * What the composition root opens or starts before any service: configuration, logger, database,
 * chain access and the key store. Services that are built from these (the transaction engine)
 * take this, not the whole `AppContext`.
 */
export interface Foundation {
  config: Config;
  logger: Logger;
  database: Database;
  keyStore: KeyStore;
  /** The one JSON-RPC client (batching, timeouts, failover across RPC_URL's endpoints). */
  rpc: RpcClient;
  /** ethers' object model over `rpc` (TypeChain contracts, the operator wallet). */
  provider: RpcClientProvider;
  /** Operator signer (deployer/registrar admin/dev faucet). */
  operator: EthersWallet;
  contracts: ContractAddresses;
  /** True when the chain is the embedded/local anvil (enables the dev faucet). */
  isLocalChain: boolean;
}

/**
 * Everything a request handler or worker needs: the foundation plus the process's services, all
 * built in one place (`createAppContext`, services/app-context-factory.ts) by the composition
 * root (`infra/start-relayer.ts`) or by the test harness (`test/support/stack.ts`), and passed
 * down explicitly.
 */
export interface AppContext extends Foundation {
  /** Prometheus registry and HTTP metrics, exposed at `/metrics`. */
  metrics: Metrics;
  /** The transaction engine: store, sequencer, block watcher, notifier (docs/transactions.md). */
  tx: TxRuntime;
  /** Registered asset-type names (a hit is final; a miss asks the registry contract). */
  assetTypes: AssetTypeCache;
  /** Where metadata documents are pinned and read from (docs/metadata.md). */
  ipfs: IpfsTarget;
  /** Successful API-key lookups, reused for at most 2 s. */
  apiKeys: ApiKeyCache;
  /** The native coin's USD price. */
  coinPrice: CoinPriceService;
  /** Enqueues webhook deliveries on the pool (no workers of its own). */
  deliveries: DeliveryProducer;
}
