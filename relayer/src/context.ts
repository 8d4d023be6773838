import type { Wallet as EthersWallet } from "ethers";
import type { RpcClient } from "./chain/rpc/rpc-client.js";
import type { ContractAddresses } from "./chain/contracts/bindings.js";
import type { RpcClientProvider } from "./chain/rpc/rpc-provider.js";
import type { Logger } from "pino";
import type { Database } from "./db/client.js";
import type { KeyStore } from "./wallets/key-store.js";
import type { SignerRouter } from "./wallets/signer-router.js";
import type { Engine } from "./engine/engine.js";
import type { IpfsTarget } from "./metadata/ipfs-target.js";
import type { Metrics } from "./metrics.js";
import type { CoinPriceService, CoinPriceSettings } from "./reads/coin-price.js";
import type { Pkcs11Settings, SignerSettings } from "./wallets/signer-settings.js";

export type { CoinPriceSettings, Pkcs11Settings, SignerSettings, WriteAdmissionSettings };
import type { ApiKeyCache } from "./auth/api-key-cache.js";
import type { RateLimiter } from "./limits/rate-limiter.js";
import type { DeliveryProducer } from "./webhooks/delivery-queue.js";
import type { WriteAdmission, WriteAdmissionSettings } from "./writes/admission.js";
import type { AssetTypeCache } from "./writes/asset-type-cache.js";

/**
 * Validated configuration (built by `config.ts` from the environment, once, at start).
 * Secrets in here are never logged.
 */
/** Which hops' `X-Forwarded-For` to believe: none, a count of proxies, or their addresses. */
export type TrustProxy = false | number | string[];

export interface Config {
  nodeEnv: "development" | "production" | "test";
  host: string;
  port: number; // 0 = any free port
  /** HTTP_LISTENERS: listening sockets sharing the port (`http/listeners.ts`). */
  httpListeners: number;
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
  /**
   * The key a master-key rotation moves away from (MASTER_KEY_PREVIOUS): envelopes sealed under
   * it still open until `npm run rotate-master-key` has re-sealed them (docs/custody.md, "Rotating the
   * master key"). Undefined outside a rotation.
   */
  masterKeyPrevious?: string | undefined;
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
  /**
   * TRUST_PROXY (Express's `trust proxy`): false (the default: the peer is the client), the
   * number of proxies in front, or their addresses/CIDR ranges. Decides `req.ip`, which API keys
   * bound to addresses and the audit log's source address use. Undefined: false.
   */
  trustProxy?: TrustProxy;
  /** Operator ceiling on any attempt's maxFeePerGas (`MAX_FEE_PER_GAS_GWEI`); none when unset. */
  maxFeePerGasWei?: bigint | undefined;
  /** Where metadata documents are pinned; absent means the embedded IPFS node under `dataDir`. */
  ipfs?: IpfsSettings;
  /**
   * CONFIRMATIONS: how many blocks must stand above a block on the canonical chain before what it
   * holds counts as final. A write seen in a block is `mined`, and `confirmed` once this many
   * blocks stand above it; the indexer releases a block's webhook events at the same depth.
   * 0 = final as soon as seen (instant-finality QBFT/IBFT chains, the embedded anvil).
   */
  confirmations: number;
  /**
   * STUCK_AFTER_BLOCKS: blocks a sent write may go unmined before it is marked stuck
   * (`not-mined`, or `nonce-gap` when a lower nonce holds it); 0 never. Absent: 20.
   */
  stuckAfterBlocks?: number;
  /** RPC_MAX_BATCH: the largest JSON-RPC batch sent to the node (default 100). */
  rpcMaxBatch: number;
  /** The accept path's bounds (`writes/admission.ts`); undefined: the defaults. */
  writeAdmission?: WriteAdmissionSettings;
  /** WEBHOOK_BACKOFF_BASE_MS: first retry delay of a webhook delivery; doubles per attempt. */
  webhookBackoffBaseMs: number;
  /**
   * WEBHOOK_SECRET_GRACE_SECONDS: after a secret rotation, deliveries are also signed with the
   * previous secret for this long (default `DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS`, 24 h).
   */
  webhookSecretGraceSeconds?: number | undefined;
  /**
   * WEBHOOK_MANUAL_PER_MINUTE: test, redeliver and replay calls per organization per minute
   * (default `DEFAULT_WEBHOOK_MANUAL_PER_MINUTE`, 30).
   */
  webhookManualPerMinute?: number | undefined;
  /** The source of `GET /api/v1/coin-price` (`reads/coin-price.ts`). */
  coinPrice: CoinPriceSettings;
  /** Where custodial keys are made and kept; absent means SIGNER=local and no PKCS#11 token. */
  signer?: SignerSettings | undefined;
  /**
   * APPROVAL_EXPIRY_SECONDS in ms: how long a held write (docs/policy.md "Approvals") or an
   * operator request (docs/people.md "Operator four-eyes") waits for its approvals; absent means
   * `DEFAULT_APPROVAL_EXPIRY_MS` (24 h, `domain/approval-expiry.ts`).
   */
  approvalExpiryMs?: number | undefined;
  /**
   * OPERATOR_FOUR_EYES: a forced transfer, freeze or unfreeze waits for a second operator person
   * (docs/people.md "Operator four-eyes"). Absent or true: on; false (refused in production):
   * carried out at once, for a development chain with one operator.
   */
  operatorFourEyes?: boolean | undefined;
  /**
   * CONSOLE_KEY_SIGN_IN: the console's sign-in also takes an API key or the admin token
   * (docs/people.md "Signing in with a key"). Absent or false: people only; true (refused in
   * production): for development and the test stack.
   */
  consoleKeySignIn?: boolean | undefined;
  /**
   * SMTP_URL (`smtp://` or `smtps://`, credentials in it): invitations are mailed through it
   * (docs/people.md "Mailed invitations"); absent: shown to the inviter only.
   */
  smtpUrl?: string | undefined;
  /** SMTP_FROM: the sender of invitation mails. */
  smtpFrom?: string | undefined;
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
 * built in one place (`createAppContext`, create-app-context.ts) by the composition
 * root (`start-relayer.ts`) or by the test harness (`test/support/stack.ts`), and passed
 * down explicitly.
 */
export interface AppContext extends Foundation {
  /** Prometheus registry and HTTP metrics, exposed at `/metrics`. */
  metrics: Metrics;
  /** The transaction engine: store, sequencer, block watcher, notifier (docs/transactions.md). */
  engine: Engine;
  /** The signer backends: each wallet's key where it lives; new keys in SIGNER's backend. */
  signers: SignerRouter;
  /** Registered asset-type names (a hit is final; a miss asks the registry contract). */
  assetTypes: AssetTypeCache;
  /** Where metadata documents are pinned and read from (docs/metadata.md). */
  ipfs: IpfsTarget;
  /** Successful API-key lookups, reused for at most 2 s. */
  apiKeys: ApiKeyCache;
  /** Request limits: shares of each bucket leased from PostgreSQL and spent in this process. */
  rateLimiter: RateLimiter;
  /** The native coin's USD price. */
  coinPrice: CoinPriceService;
  /** Enqueues webhook deliveries on the pool (no workers of its own). */
  deliveries: DeliveryProducer;
  /** The accept path's bounds: a write over them is refused at once with 429. */
  admission: WriteAdmission;
}
