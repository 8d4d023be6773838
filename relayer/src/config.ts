import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseUnits } from "ethers";
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { ANVIL_DEV_PRIVATE_KEY, LOCAL_CHAIN_ID } from "../../deploy/rpc.js";
import type {
  WriteAdmissionSettings,
  CoinPriceSettings,
  Config,
  IpfsSettings,
  SignerSettings,
  TrustProxy,
} from "./context.js";
import { ConfigError } from "./errors.js";

/**
 * Configuration from environment variables, in two pure steps:
 *
 * 1. `parseEnv(env)` validates every variable and applies defaults. Secrets may still be missing.
 * 2. `resolveConfig(settings, devSecrets?)` fills the missing secrets (development only, from
 *    values that `infra/dev-secrets.ts` generated and saved under DATA_DIR) and applies the
 *    production rules, giving the shared `Config`.
 *
 * `loadConfig(env)` is both steps without generated secrets (a fully configured environment).
 * Nothing here touches the disk or the network; the composition root does the I/O.
 *
 * Every variable this file reads is a key of `variables` below (exported as `CONFIG_VARIABLES`);
 * empty counts as unset. docs/configuration.md ("Relayer variables") documents each one, and
 * test/relayer/config/configuration-env-table.test.ts keeps that table and `CONFIG_VARIABLES` in step.
 * Nothing else under relayer/src reads `process.env` for a setting: a value reaches the code that
 * uses it through `Config` (services, workers) or `EnvSettings` (the composition root only).
 */

/** The chain the service targets. Not configurable: contracts, docs and SDK assume it. */
export const TARGET_CHAIN_ID: number = LOCAL_CHAIN_ID;

/**
 * Default HTTP_LISTENERS: listening sockets sharing the port, so a busy event loop still accepts
 * many new connections per turn (`http/listeners.ts`); SO_REUSEPORT spreads them on Linux only.
 */
export const DEFAULT_HTTP_LISTENERS = process.platform === "linux" ? 64 : 1;

/** Default HTTP port (0 asks the OS for a free one). */
export const DEFAULT_PORT = 8080;
/** Default port of the embedded anvil. */
export const DEFAULT_ANVIL_PORT = 8545;
/** Preferred port of the embedded PostgreSQL (5432 is often taken by a system server). */
export const DEFAULT_EMBEDDED_PG_PORT = 54329;
/** Default dev-faucet grant per new org wallet on the local chain, in coin. */
export const DEFAULT_DEV_FAUCET_AMOUNT = "100";
/** Default request body limit: 256 KiB (a 100-item batch-issue fits easily). */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;
/**
 * Default CONFIRMATIONS, on the embedded chain and on an RPC_URL alike: a block counts as final
 * as soon as it is seen. Chain 1236 is a private chain, and private EVM chains run QBFT or IBFT
 * (instant finality: a sealed block is never replaced) far more often than Clique or proof of
 * work; any other default would add blocks of latency to every write and webhook there. An
 * operator on a chain that can reorganise sets CONFIRMATIONS (docs/configuration.md); the start
 * warns when RPC_URL is set without it.
 */
export const DEFAULT_CONFIRMATIONS = 0;
/**
 * Default STUCK_AFTER_BLOCKS: a write normally mined in the next block that is still out after
 * 20 (20 s on 1 s blocks, past the first re-pricing at 15 s) is marked stuck.
 */
export const DEFAULT_STUCK_AFTER_BLOCKS = 20;
/** Largest CONFIRMATIONS accepted: the indexer searches reorgs this deep (`maxReorgDepth`). */
export const MAX_CONFIRMATIONS = 1_000;
/** Default RPC_MAX_BATCH: the largest JSON-RPC batch sent to the node. */
export const DEFAULT_RPC_MAX_BATCH = 100;
/** Default WEBHOOK_BACKOFF_BASE_MS: the first retry delay of a webhook delivery (10 s). */
export const DEFAULT_WEBHOOK_BACKOFF_BASE_MS = 10_000;

/**
 * The defaults of SYNC_WRITE_DEADLINE_SECONDS, WRITE_ACCEPT_CONCURRENCY and
 * WRITE_QUEUE_DRAIN_SECONDS (writes/admission.ts; docs/scaling.md, "Sizing the bounds").
 */
export const DEFAULT_WRITE_ADMISSION: WriteAdmissionSettings = {
  syncDeadlineMs: 30_000,
  acceptConcurrency: 128,
  queueDrainSeconds: 10,
  queueMax: undefined,
};
/** Default WEBHOOK_SECRET_GRACE_SECONDS: how long a rotated-out webhook secret still signs (24 h). */
export const DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS = 86_400;
/** Default WEBHOOK_MANUAL_PER_MINUTE: test, redeliver and replay calls per organization per minute. */
export const DEFAULT_WEBHOOK_MANUAL_PER_MINUTE = 30;
/** Default APPROVAL_EXPIRY_SECONDS: how long held writes and operator requests wait (24 h). */
export const DEFAULT_APPROVAL_EXPIRY_SECONDS = 86_400;
/** Default COIN_PRICE_TTL_SECONDS: how long a price fetched from COIN_PRICE_URL is served. */
export const DEFAULT_COIN_PRICE_TTL_SECONDS = 60;

/** The repository root (two levels above relayer/src). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const ADMIN_TOKEN_RE = /^ent_admin_[0-9a-f]{64}$/;
const MASTER_KEY_RE = /^[0-9a-fA-F]{64}$/;
const PRIVATE_KEY_RE = /^0x[0-9a-fA-F]{64}$/;

/** Variables whose values are secrets: errors about them never quote the value. */
export const SECRET_VARIABLES = new Set([
  "ADMIN_TOKEN",
  "MASTER_KEY",
  "MASTER_KEY_PREVIOUS",
  "OPERATOR_PRIVATE_KEY",
  "DATABASE_URL",
  "METRICS_TOKEN",
  "IPFS_PINNING_TOKEN",
  "PKCS11_PIN",
  "BACKUP_IDENTITY",
  "SMTP_URL",
]);

/**
 * Everything the environment says, validated, before secrets are resolved. Besides the `Config`
 * fields it carries the knobs of the embedded services, which only the composition root uses.
 */
export interface EnvSettings {
  nodeEnv: Config["nodeEnv"];
  host: string;
  port: number;
  /** HTTP_LISTENERS: listening sockets sharing the port (`http/listeners.ts`). */
  httpListeners: number;
  dataDir: string;
  rpcUrl: string | undefined;
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  masterKey: string | undefined;
  /** MASTER_KEY_PREVIOUS: the key a master-key rotation moves away from (docs/custody.md, "Rotating the master key"). */
  masterKeyPrevious: string | undefined;
  operatorPrivateKey: string | undefined;
  coinSymbol: string;
  webhookAllowLocal: boolean;
  /** METRICS_TOKEN: a Bearer token that may read `/metrics` besides the admin token. */
  metricsToken: string | undefined;
  /** PUBLIC_BASE_URL: the origin clients reach the service at (behind a proxy); no trailing slash. */
  publicBaseUrl: string | undefined;
  /** Undefined when DEV_FAUCET_AMOUNT is unset (the default depends on the chain). */
  devFaucetAmountWei: bigint | undefined;
  logLevel: string;
  apiKeyRateLimitPerMinute: number;
  bodyLimitBytes: number;
  /** TRUST_PROXY: which proxies' `X-Forwarded-For` to believe; false: none. */
  trustProxy: TrustProxy;
  /** ANVIL_PORT: port of the embedded anvil (only used without RPC_URL). */
  anvilPort: number;
  /** EMBEDDED_PG_PORT: port of the embedded PostgreSQL; undefined = remembered or 54329. */
  embeddedPostgresPort: number | undefined;
  /** DEPLOYMENTS_FILE: deployment record to read when RPC_URL is set. */
  deploymentsFile: string | undefined;
  /** BACKUP_RECIPIENTS: age public keys `npm run backup` seals to (empty: under the master key). */
  backupRecipients: string[];
  /** BACKUP_IDENTITY: an age identity, or a file of them, that opens such a backup (`npm run restore`). */
  backupIdentity: string | undefined;
  /** SHUTDOWN_TIMEOUT_MS: hard limit for a clean stop before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** MAX_FEE_PER_GAS_GWEI in wei: no attempt (first send or re-pricing) pays more per gas. */
  maxFeePerGasWei: bigint | undefined;
  /** Where metadata documents are pinned (IPFS_API_URL, IPFS_PINNING_SERVICE + IPFS_PINNING_TOKEN). */
  ipfs: IpfsSettings;
  /** CONFIRMATIONS; undefined when unset (`resolveConfig` applies `DEFAULT_CONFIRMATIONS`). */
  confirmations: number | undefined;
  /** STUCK_AFTER_BLOCKS: blocks a sent write may go unmined before it is marked stuck (0: never). */
  stuckAfterBlocks: number | undefined;
  /** APPROVAL_EXPIRY_SECONDS in ms: how long held writes and operator requests wait. */
  approvalExpiryMs: number;
  /** OPERATOR_FOUR_EYES: `on` (default) or `off` (refused in production). */
  operatorFourEyes: boolean;
  /** CONSOLE_KEY_SIGN_IN: `off` (default) or `on` (refused in production). */
  consoleKeySignIn: boolean;
  /** SMTP_URL: where invitations are mailed through; undefined: not mailed. */
  smtpUrl: string | undefined;
  /** SMTP_FROM: the sender of invitation mails. */
  smtpFrom: string;
  /** RPC_MAX_BATCH: the largest JSON-RPC batch sent to the node. */
  rpcMaxBatch: number;
  /**
   * The accept path's bounds (docs/scaling.md, "The accept path"): SYNC_WRITE_DEADLINE_SECONDS (a
   * sync write's wait before its 202), WRITE_ACCEPT_CONCURRENCY (writes being accepted at once by
   * this process), WRITE_QUEUE_DRAIN_SECONDS (the live writes the chain drains in that time) or
   * WRITE_QUEUE_MAX (that bound as a number).
   */
  writeAdmission: WriteAdmissionSettings;
  /** WEBHOOK_BACKOFF_BASE_MS: first retry delay of a webhook delivery. */
  webhookBackoffBaseMs: number;
  /** WEBHOOK_SECRET_GRACE_SECONDS: how long the previous secret still signs after a rotation. */
  webhookSecretGraceSeconds: number;
  /** WEBHOOK_MANUAL_PER_MINUTE: test, redeliver and replay calls per organization per minute. */
  webhookManualPerMinute: number;
  /** COIN_PRICE_USD, COIN_PRICE_URL, COIN_PRICE_TTL_SECONDS: the source of `/api/v1/coin-price`. */
  coinPrice: CoinPriceSettings;
  /** CONSOLE_BUILD: `auto` rebuilds the console's static export at start when stale; `off` never. */
  consoleBuild: "auto" | "off";
  /** Where custodial keys are made and kept (SIGNER, PKCS11_MODULE, PKCS11_TOKEN_LABEL, PKCS11_PIN). */
  signer: SignerSettings;
  /**
   * RELAYER_ROLE: what this process runs (docs/scaling.md). `all`: everything. `api`: the HTTP API
   * only (writes are recorded and left to a worker). `worker`: the transaction engine, the indexer,
   * webhook and pin delivery, with only `/healthz` and `/metrics` over HTTP.
   */
  role: RelayerRole;
}

/** What one relayer process may run (RELAYER_ROLE). */
const RELAYER_ROLES = ["all", "api", "worker"] as const;
export type RelayerRole = (typeof RELAYER_ROLES)[number];

/** Secrets generated in development and kept under DATA_DIR (see `infra/dev-secrets.ts`). */
export interface DevSecrets {
  adminToken?: string | undefined;
  masterKey?: string | undefined;
  /** Kept by `npm run rotate-master-key` while a development rotation runs. */
  masterKeyPrevious?: string | undefined;
}

// Empty strings count as unset: `FOO= npm start` and docker-compose's `FOO:` mean "no value".
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const port = (allowZero: boolean) =>
  z
    .string()
    .regex(/^\d{1,5}$/, "must be a port number")
    .transform(Number)
    .refine(
      (n) => n <= 65_535 && (allowZero || n > 0),
      allowZero ? "must be 0-65535" : "must be 1-65535",
    );

const positiveInt = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a positive integer")
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `must be between 1 and ${max}`);

const url = (protocols: readonly string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    `must be a ${protocols.map((p) => p.replace(":", "")).join(" or ")} URL`,
  );

/** `256kb`, `1mb`, `262144`: bytes. */
const byteSize = z
  .string()
  .regex(/^\d+\s*(b|kb|mb)?$/i, "must be a size in bytes (e.g. 262144, 256kb, 1mb)")
  .transform((value) => {
    const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(value)!;
    const unit = (match[2] ?? "b").toLowerCase();
    return Number(match[1]) * (unit === "mb" ? 1024 * 1024 : unit === "kb" ? 1024 : 1);
  })
  .refine((n) => n >= 1024 && n <= 64 * 1024 * 1024, "must be between 1kb and 64mb");

/** Names Express's `trust proxy` accepts for whole address ranges. */
const PROXY_RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);
const TRUST_PROXY_MESSAGE =
  "must be false, the number of proxies in front (1-10), or a comma-separated list of the " +
  "proxies' addresses or CIDR ranges (loopback, linklocal and uniquelocal name ranges); " +
  "true would believe any client's X-Forwarded-For";

/**
 * TRUST_PROXY: which hops' `X-Forwarded-For` to believe (Express's `trust proxy`): `false`, a
 * count of proxies in front, or the proxies' addresses. Never `true`: a client could then name
 * any address, and an API key bound to addresses would bind nothing.
 */
const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  const text = value.trim();
  if (text === "false") return false;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops >= 1 && hops <= 10) return hops;
  } else {
    const items = text.split(",").map((item) => item.trim());
    const valid = (item: string) =>
      PROXY_RANGE_NAMES.has(item) || ipaddr.isValid(item) || ipaddr.isValidCIDR(item);
    if (items.length > 0 && items.every(valid)) return items;
  }
  ctx.addIssue({ code: "custom", message: TRUST_PROXY_MESSAGE });
  return z.NEVER;
});

const coinAmount = z.string().transform((value, ctx) => {
  if (!/^\d+(\.\d{1,18})?$/.test(value)) {
    ctx.addIssue({ code: "custom", message: "must be a decimal amount of coin (e.g. 100 or 0.5)" });
    return z.NEVER;
  }
  return parseUnits(value, 18);
});

/** One validator per variable. Values arrive as strings (or undefined) from the environment. */
const variables = {
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z
    .string()
    .regex(/^[0-9A-Za-z.:\-[\]]+$/, "must be a host name or IP address")
    .default("127.0.0.1"),
  PORT: port(true).default(DEFAULT_PORT),
  HTTP_LISTENERS: positiveInt(1_024).default(DEFAULT_HTTP_LISTENERS),
  DATA_DIR: z.string().min(1).optional(),
  // One node URL, or several separated by commas: the RPC client fails over between them.
  RPC_URL: z
    .string()
    .transform((value) => value.split(",").map((part) => part.trim()))
    .pipe(z.array(url(["http:", "https:"])).min(1))
    .transform((urls) => urls.join(","))
    .optional(),
  DATABASE_URL: url(["postgres:", "postgresql:"]).optional(),
  ADMIN_TOKEN: z
    .string()
    .regex(ADMIN_TOKEN_RE, "must be ent_admin_ followed by 64 lower-case hex characters")
    .optional(),
  MASTER_KEY: z.string().regex(MASTER_KEY_RE, "must be 64 hex characters (32 bytes)").optional(),
  MASTER_KEY_PREVIOUS: z
    .string()
    .regex(MASTER_KEY_RE, "must be 64 hex characters (32 bytes)")
    .optional(),
  OPERATOR_PRIVATE_KEY: z
    .string()
    .regex(PRIVATE_KEY_RE, "must be 0x followed by 64 hex characters")
    .optional(),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  WEBHOOK_ALLOW_LOCAL: z.enum(["true", "false"], { message: "must be true or false" }).optional(),
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{32,256}$/, "must be 32 to 256 visible ASCII characters")
    .optional(),
  PUBLIC_BASE_URL: url(["http:", "https:"])
    .refine((value) => {
      const parsed = new URL(value);
      return (
        parsed.username === "" &&
        parsed.password === "" &&
        parsed.search === "" &&
        parsed.hash === ""
      );
    }, "must be an origin with an optional path (no credentials, query or fragment)")
    .transform((value) => value.replace(/\/+$/, ""))
    .optional(),
  COIN_SYMBOL: z
    .string()
    .regex(/^[A-Za-z0-9]{1,11}$/, "must be 1-11 letters or digits")
    .default("COIN"),
  DEV_FAUCET_AMOUNT: coinAmount.optional(),
  API_KEY_RATE_LIMIT_PER_MINUTE: positiveInt(1_000_000).default(60),
  BODY_LIMIT: byteSize.default(DEFAULT_BODY_LIMIT_BYTES),
  TRUST_PROXY: trustProxy.optional(),
  ANVIL_PORT: port(false).default(DEFAULT_ANVIL_PORT),
  EMBEDDED_PG_PORT: port(false).optional(),
  DEPLOYMENTS_FILE: z.string().min(1).optional(),
  BACKUP_RECIPIENTS: z
    .string()
    .transform((value) => value.split(/[\s,]+/).filter((r) => r !== ""))
    .refine(
      (list) => list.every((r) => /^age1[02-9ac-hj-np-z]{20,}$/.test(r)),
      "must be age public keys (age1…), separated by commas or spaces",
    )
    .optional(),
  BACKUP_IDENTITY: z.string().trim().min(1).optional(),
  SHUTDOWN_TIMEOUT_MS: positiveInt(600_000).default(10_000),
  MAX_FEE_PER_GAS_GWEI: z
    .string()
    .regex(/^\d+(\.\d{1,9})?$/, "must be a decimal number of gwei (e.g. 500 or 1.5)")
    .transform((value) => parseUnits(value, 9))
    .refine((wei) => wei > 0n, "must be above 0")
    .optional(),
  IPFS_API_URL: url(["http:", "https:"]).optional(),
  IPFS_PINNING_SERVICE: url(["http:", "https:"]).optional(),
  IPFS_PINNING_TOKEN: z.string().min(1).optional(),
  CONFIRMATIONS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of blocks (0 or more)")
    .transform(Number)
    .refine((n) => n <= MAX_CONFIRMATIONS, `must be at most ${MAX_CONFIRMATIONS}`)
    .optional(),
  STUCK_AFTER_BLOCKS: z
    .string()
    .regex(/^\d+$/, "must be a whole number of blocks (0: never)")
    .transform(Number)
    .refine((n) => n <= 100_000, "must be at most 100000")
    .optional(),
  RPC_MAX_BATCH: positiveInt(10_000).default(DEFAULT_RPC_MAX_BATCH),
  // The accept path's defaults are `DEFAULT_WRITE_ADMISSION`'s.
  SYNC_WRITE_DEADLINE_SECONDS: positiveInt(600).default(
    DEFAULT_WRITE_ADMISSION.syncDeadlineMs / 1_000,
  ),
  WRITE_ACCEPT_CONCURRENCY: positiveInt(100_000).default(DEFAULT_WRITE_ADMISSION.acceptConcurrency),
  WRITE_QUEUE_DRAIN_SECONDS: positiveInt(86_400).default(DEFAULT_WRITE_ADMISSION.queueDrainSeconds),
  WRITE_QUEUE_MAX: positiveInt(100_000_000).optional(),
  WEBHOOK_BACKOFF_BASE_MS: positiveInt(3_600_000).default(DEFAULT_WEBHOOK_BACKOFF_BASE_MS),
  WEBHOOK_SECRET_GRACE_SECONDS: positiveInt(30 * 86_400).default(
    DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS,
  ),
  WEBHOOK_MANUAL_PER_MINUTE: positiveInt(10_000).default(DEFAULT_WEBHOOK_MANUAL_PER_MINUTE),
  APPROVAL_EXPIRY_SECONDS: positiveInt(30 * 86_400).default(DEFAULT_APPROVAL_EXPIRY_SECONDS),
  OPERATOR_FOUR_EYES: z.enum(["on", "off"], { message: "must be on or off" }).default("on"),
  CONSOLE_KEY_SIGN_IN: z.enum(["on", "off"], { message: "must be on or off" }).default("off"),
  SMTP_URL: url(["smtp:", "smtps:"]).optional(),
  SMTP_FROM: z.string().trim().min(3).max(254).default("RWA Console <no-reply@localhost>"),
  COIN_PRICE_USD: z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a decimal number (e.g. 2.50)")
    .optional(),
  COIN_PRICE_URL: url(["http:", "https:"]).optional(),
  COIN_PRICE_TTL_SECONDS: positiveInt(86_400).default(DEFAULT_COIN_PRICE_TTL_SECONDS),
  CONSOLE_BUILD: z.enum(["auto", "off"], { message: "must be auto or off" }).default("auto"),
  SIGNER: z.enum(["local", "pkcs11"], { message: "must be local or pkcs11" }).default("local"),
  PKCS11_MODULE: z.string().min(1).optional(),
  PKCS11_TOKEN_LABEL: z
    .string()
    .refine((label) => Buffer.byteLength(label, "utf8") <= 32, "must be at most 32 bytes")
    .optional(),
  PKCS11_PIN: z.string().min(1).optional(),
  RELAYER_ROLE: z.enum(RELAYER_ROLES, { message: "must be all, api or worker" }).default("all"),
} as const;

type VariableName = keyof typeof variables;

/** Every environment variable the relayer reads, in the order `variables` declares them. */
export const CONFIG_VARIABLES: readonly VariableName[] = Object.keys(variables) as VariableName[];

/**
 * Variables the relayer no longer reads, each with what replaces it. Setting one refuses the
 * start rather than being silently ignored.
 */
export const RETIRED_VARIABLES: Readonly<Record<string, string>> = {
  // Counted differently: its 1 meant "as soon as the block is indexed", which CONFIRMATIONS
  // calls 0, so accepting it as an alias would have shifted every setting by one block.
  INDEXER_CONFIRMATIONS:
    "replaced by CONFIRMATIONS, which counts the blocks standing above a block " +
    "(INDEXER_CONFIRMATIONS=N is CONFIRMATIONS=N-1); set CONFIRMATIONS instead",
};

function parseVariable<K extends VariableName>(
  name: K,
  raw: string | undefined,
): z.output<(typeof variables)[K]> {
  const value = optionalText.parse(raw);
  const result = variables[name].safeParse(value);
  if (result.success) return result.data as z.output<(typeof variables)[K]>;
  const reason = result.error.issues[0]?.message ?? "is invalid";
  // Quote the offending value only for non-secrets, so a mistyped key never reaches a log.
  const shown =
    SECRET_VARIABLES.has(name) || value === undefined ? "" : ` (got "${value.slice(0, 80)}")`;
  throw new ConfigError(`Invalid ${name}: ${reason}${shown}`, { details: { variable: name } });
}

/**
 * Validates the environment and applies defaults. Pure: no files, no network.
 *
 * @param env the environment (default `process.env`)
 * @param cwd base for a relative DATA_DIR / DEPLOYMENTS_FILE (default the repository root)
 * @throws ConfigError naming the first malformed variable (never quoting a secret)
 * @example
 * const settings = parseEnv({ PORT: "0", DATA_DIR: "/tmp/x" });
 */
export function parseEnv(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = REPO_ROOT,
): EnvSettings {
  for (const [name, replacement] of Object.entries(RETIRED_VARIABLES)) {
    if (optionalText.parse(env[name]) !== undefined)
      throw new ConfigError(`Unsupported ${name}: ${replacement}`, { details: { variable: name } });
  }
  const get = <K extends VariableName>(name: K) => parseVariable(name, env[name]);
  const dataDir = path.resolve(cwd, get("DATA_DIR") ?? ".data");
  const deploymentsFile = get("DEPLOYMENTS_FILE");
  const allowLocal = get("WEBHOOK_ALLOW_LOCAL");
  const nodeEnv = get("NODE_ENV");
  const settings: EnvSettings = {
    nodeEnv,
    host: get("HOST"),
    port: get("PORT"),
    httpListeners: get("HTTP_LISTENERS"),
    dataDir,
    rpcUrl: get("RPC_URL"),
    databaseUrl: get("DATABASE_URL"),
    adminToken: get("ADMIN_TOKEN"),
    masterKey: get("MASTER_KEY")?.toLowerCase(),
    masterKeyPrevious: get("MASTER_KEY_PREVIOUS")?.toLowerCase(),
    operatorPrivateKey: get("OPERATOR_PRIVATE_KEY"),
    coinSymbol: get("COIN_SYMBOL"),
    // Local webhook targets (127.0.0.1, private ranges) are an SSRF risk; allowed by default
    // only outside production so the quick start can point a webhook at localhost.
    // Off unless asked for (issue 3): local targets are a server-side request forgery risk.
    webhookAllowLocal: allowLocal === "true",
    metricsToken: get("METRICS_TOKEN"),
    publicBaseUrl: get("PUBLIC_BASE_URL"),
    devFaucetAmountWei: get("DEV_FAUCET_AMOUNT"),
    logLevel: get("LOG_LEVEL"),
    apiKeyRateLimitPerMinute: get("API_KEY_RATE_LIMIT_PER_MINUTE"),
    bodyLimitBytes: get("BODY_LIMIT"),
    trustProxy: get("TRUST_PROXY") ?? false,
    anvilPort: get("ANVIL_PORT"),
    embeddedPostgresPort: get("EMBEDDED_PG_PORT"),
    deploymentsFile: deploymentsFile === undefined ? undefined : path.resolve(cwd, deploymentsFile),
    backupRecipients: get("BACKUP_RECIPIENTS") ?? [],
    backupIdentity: get("BACKUP_IDENTITY"),
    shutdownTimeoutMs: get("SHUTDOWN_TIMEOUT_MS"),
    maxFeePerGasWei: get("MAX_FEE_PER_GAS_GWEI"),
    ipfs: ipfsSettings(get("IPFS_API_URL"), get("IPFS_PINNING_SERVICE"), get("IPFS_PINNING_TOKEN")),
    confirmations: get("CONFIRMATIONS"),
    stuckAfterBlocks: get("STUCK_AFTER_BLOCKS"),
    rpcMaxBatch: get("RPC_MAX_BATCH"),
    writeAdmission: {
      syncDeadlineMs: get("SYNC_WRITE_DEADLINE_SECONDS") * 1_000,
      acceptConcurrency: get("WRITE_ACCEPT_CONCURRENCY"),
      queueDrainSeconds: get("WRITE_QUEUE_DRAIN_SECONDS"),
      queueMax: get("WRITE_QUEUE_MAX"),
    },
    webhookBackoffBaseMs: get("WEBHOOK_BACKOFF_BASE_MS"),
    webhookSecretGraceSeconds: get("WEBHOOK_SECRET_GRACE_SECONDS"),
    webhookManualPerMinute: get("WEBHOOK_MANUAL_PER_MINUTE"),
    approvalExpiryMs: get("APPROVAL_EXPIRY_SECONDS") * 1000,
    operatorFourEyes: get("OPERATOR_FOUR_EYES") === "on",
    consoleKeySignIn: get("CONSOLE_KEY_SIGN_IN") === "on",
    smtpUrl: get("SMTP_URL"),
    smtpFrom: get("SMTP_FROM"),
    coinPrice: {
      fixedUsd: get("COIN_PRICE_USD"),
      url: get("COIN_PRICE_URL"),
      ttlSeconds: get("COIN_PRICE_TTL_SECONDS"),
    },
    consoleBuild: get("CONSOLE_BUILD"),
    signer: signerSettings(
      get("SIGNER"),
      get("PKCS11_MODULE"),
      get("PKCS11_TOKEN_LABEL"),
      get("PKCS11_PIN"),
    ),
    role: get("RELAYER_ROLE"),
  };
  checkRole(settings);
  return settings;
}

/**
 * The embedded chain and database serve one process: a process that runs only part of the
 * service shares them with the others, so it needs RPC_URL and DATABASE_URL.
 */
function checkRole({ role, rpcUrl, databaseUrl }: EnvSettings): void {
  if (role === "all") return;
  const given = { RPC_URL: rpcUrl, DATABASE_URL: databaseUrl };
  const missing = Object.entries(given).flatMap(([name, value]) =>
    value === undefined ? [name] : [],
  );
  if (missing.length > 0) {
    throw new ConfigError(
      `Missing ${missing.join(", ")}: required with RELAYER_ROLE=${role} (the embedded chain and ` +
        `database serve one process; the processes of a split share a node and a database)`,
      { details: { variable: missing[0] } },
    );
  }
}

/**
 * Where custodial keys live. SIGNER picks the backend of new organizations' keys; an existing
 * organization keeps the backend its key was made in (`wallets.signer_backend`). The PKCS#11
 * token is opened whenever PKCS11_MODULE is set, so a process with SIGNER=local still signs for
 * wallets whose keys are in the token. The three PKCS11_ variables go together.
 */
function signerSettings(
  newWallets: SignerSettings["newWallets"],
  module: string | undefined,
  tokenLabel: string | undefined,
  pin: string | undefined,
): SignerSettings {
  const given = { PKCS11_MODULE: module, PKCS11_TOKEN_LABEL: tokenLabel, PKCS11_PIN: pin };
  const missing = Object.entries(given).flatMap(([name, value]) =>
    value === undefined ? [name] : [],
  );
  if (missing.length === 3 && newWallets === "local") return { newWallets };
  if (missing.length > 0) {
    const why =
      newWallets === "pkcs11"
        ? "required with SIGNER=pkcs11"
        : "the PKCS11_ variables go together (module, token label, PIN)";
    throw new ConfigError(`Missing ${missing.join(", ")}: ${why}`, {
      details: { variable: missing[0] },
    });
  }
  return { newWallets, pkcs11: { module: module!, tokenLabel: tokenLabel!, pin: pin! } };
}

/**
 * The IPFS target: a kubo node (IPFS_API_URL), an IPFS Pinning Service API endpoint
 * (IPFS_PINNING_SERVICE with IPFS_PINNING_TOKEN), or by default the embedded node under DATA_DIR.
 */
function ipfsSettings(
  apiUrl: string | undefined,
  service: string | undefined,
  token: string | undefined,
): IpfsSettings {
  if (apiUrl !== undefined && service !== undefined) {
    throw new ConfigError("Set IPFS_API_URL or IPFS_PINNING_SERVICE, not both", {
      details: { variable: "IPFS_PINNING_SERVICE" },
    });
  }
  if (apiUrl !== undefined) return { kind: "kubo", url: apiUrl };
  if (service !== undefined) {
    if (token === undefined) {
      throw new ConfigError("Missing IPFS_PINNING_TOKEN: required with IPFS_PINNING_SERVICE", {
        details: { variable: "IPFS_PINNING_TOKEN" },
      });
    }
    return { kind: "pinning-service", url: service, token };
  }
  return { kind: "embedded" };
}

/** Which secrets the environment lacks and development mode must generate. */
export function missingDevSecrets(settings: EnvSettings): Array<"adminToken" | "masterKey"> {
  const missing: Array<"adminToken" | "masterKey"> = [];
  if (settings.adminToken === undefined) missing.push("adminToken");
  if (settings.masterKey === undefined) missing.push("masterKey");
  return missing;
}

/**
 * Applies the production rules and fills missing secrets, giving the shared `Config`. Pure.
 *
 * Production (`NODE_ENV=production`) requires RPC_URL (no embedded chain), DATABASE_URL (no
 * embedded database), ADMIN_TOKEN, MASTER_KEY and OPERATOR_PRIVATE_KEY, and refuses a dev faucet
 * and WEBHOOK_ALLOW_LOCAL=true (webhooks aimed inside the network are a request-forgery risk).
 * Elsewhere, missing ADMIN_TOKEN / MASTER_KEY come from `devSecrets`, and OPERATOR_PRIVATE_KEY
 * defaults to anvil's first account only when the chain is the embedded anvil (no RPC_URL).
 *
 * @throws ConfigError naming the missing or conflicting variable
 */
export function resolveConfig(settings: EnvSettings, devSecrets: DevSecrets = {}): Config {
  const production = settings.nodeEnv === "production";
  const embeddedChain = settings.rpcUrl === undefined;
  if (production) {
    const required: Array<[string, unknown]> = [
      ["RPC_URL", settings.rpcUrl],
      ["DATABASE_URL", settings.databaseUrl],
      ["ADMIN_TOKEN", settings.adminToken],
      ["MASTER_KEY", settings.masterKey],
      ["OPERATOR_PRIVATE_KEY", settings.operatorPrivateKey],
    ];
    const missing = required.filter(([, value]) => value === undefined).map(([name]) => name);
    if (missing.length > 0) {
      throw new ConfigError(
        `Missing ${missing.join(", ")}: production (NODE_ENV=production) starts no embedded chain or ` +
          `database and generates no secrets`,
        { details: { variables: missing } },
      );
    }
    if (settings.consoleKeySignIn) {
      throw new ConfigError(
        "Invalid CONSOLE_KEY_SIGN_IN: the console signs in people only in production; unset it or use off",
        { details: { variable: "CONSOLE_KEY_SIGN_IN" } },
      );
    }
    if (!settings.operatorFourEyes) {
      throw new ConfigError(
        "Invalid OPERATOR_FOUR_EYES: a second operator person's approval cannot be turned off in production",
        { details: { variable: "OPERATOR_FOUR_EYES" } },
      );
    }
    if (settings.webhookAllowLocal) {
      throw new ConfigError(
        "Invalid WEBHOOK_ALLOW_LOCAL: local and private webhook targets are refused in production " +
          "(NODE_ENV=production); unset it or use false",
        { details: { variable: "WEBHOOK_ALLOW_LOCAL" } },
      );
    }
    if (settings.devFaucetAmountWei !== undefined && settings.devFaucetAmountWei > 0n) {
      throw new ConfigError(
        "Invalid DEV_FAUCET_AMOUNT: the dev faucet is disabled in production (unset it or use 0)",
        {
          details: { variable: "DEV_FAUCET_AMOUNT" },
        },
      );
    }
  }

  const adminToken = settings.adminToken ?? (production ? undefined : devSecrets.adminToken);
  const masterKey =
    settings.masterKey ?? (production ? undefined : devSecrets.masterKey?.toLowerCase());
  if (adminToken === undefined || !ADMIN_TOKEN_RE.test(adminToken)) {
    throw new ConfigError(
      "Missing ADMIN_TOKEN: set it, or start in development mode to generate one",
      {
        details: { variable: "ADMIN_TOKEN" },
      },
    );
  }
  if (masterKey === undefined || !MASTER_KEY_RE.test(masterKey)) {
    throw new ConfigError(
      "Missing MASTER_KEY: set it, or start in development mode to generate one",
      {
        details: { variable: "MASTER_KEY" },
      },
    );
  }
  const masterKeyPrevious = resolvePreviousMasterKey(settings, masterKey, production, devSecrets);
  const operatorPrivateKey =
    settings.operatorPrivateKey ??
    (embeddedChain && !production ? ANVIL_DEV_PRIVATE_KEY : undefined);
  if (operatorPrivateKey === undefined) {
    throw new ConfigError(
      "Missing OPERATOR_PRIVATE_KEY: required with RPC_URL (the anvil dev key is only used for the embedded chain)",
      { details: { variable: "OPERATOR_PRIVATE_KEY" } },
    );
  }

  return {
    nodeEnv: settings.nodeEnv,
    host: settings.host,
    port: settings.port,
    httpListeners: settings.httpListeners,
    dataDir: settings.dataDir,
    rpcUrl: settings.rpcUrl,
    databaseUrl: settings.databaseUrl,
    adminToken,
    masterKey,
    masterKeyPrevious,
    operatorPrivateKey,
    chainId: TARGET_CHAIN_ID,
    coinSymbol: settings.coinSymbol,
    webhookAllowLocal: settings.webhookAllowLocal,
    metricsToken: settings.metricsToken,
    publicBaseUrl: settings.publicBaseUrl,
    devFaucetAmountWei:
      settings.devFaucetAmountWei ??
      (embeddedChain && !production ? parseUnits(DEFAULT_DEV_FAUCET_AMOUNT, 18) : 0n),
    logLevel: settings.logLevel,
    apiKeyRateLimitPerMinute: settings.apiKeyRateLimitPerMinute,
    bodyLimitBytes: settings.bodyLimitBytes,
    trustProxy: settings.trustProxy,
    maxFeePerGasWei: settings.maxFeePerGasWei,
    ipfs: settings.ipfs,
    confirmations: settings.confirmations ?? DEFAULT_CONFIRMATIONS,
    stuckAfterBlocks: settings.stuckAfterBlocks ?? DEFAULT_STUCK_AFTER_BLOCKS,
    rpcMaxBatch: settings.rpcMaxBatch,
    writeAdmission: settings.writeAdmission,
    webhookBackoffBaseMs: settings.webhookBackoffBaseMs,
    webhookSecretGraceSeconds: settings.webhookSecretGraceSeconds,
    webhookManualPerMinute: settings.webhookManualPerMinute,
    coinPrice: settings.coinPrice,
    signer: settings.signer,
    approvalExpiryMs: settings.approvalExpiryMs,
    operatorFourEyes: settings.operatorFourEyes,
    consoleKeySignIn: settings.consoleKeySignIn,
    smtpUrl: settings.smtpUrl,
    smtpFrom: settings.smtpFrom,
  };
}

/**
 * The previous master key during a rotation: MASTER_KEY_PREVIOUS (only beside an explicit
 * MASTER_KEY: the pair names the old and the new key together), or in development, when the
 * master key itself comes from the secrets file, that file's `masterKeyPrevious`.
 *
 * @throws ConfigError when MASTER_KEY_PREVIOUS comes without MASTER_KEY or equals it
 */
function resolvePreviousMasterKey(
  settings: EnvSettings,
  masterKey: string,
  production: boolean,
  devSecrets: DevSecrets,
): string | undefined {
  let previous: string | undefined;
  if (settings.masterKeyPrevious !== undefined) {
    if (settings.masterKey === undefined) {
      throw new ConfigError(
        "Invalid MASTER_KEY_PREVIOUS: set it together with MASTER_KEY (the new key) during a " +
          "master-key rotation",
        { details: { variable: "MASTER_KEY_PREVIOUS" } },
      );
    }
    previous = settings.masterKeyPrevious;
  } else if (settings.masterKey === undefined && !production) {
    previous = devSecrets.masterKeyPrevious?.toLowerCase();
  }
  if (previous !== undefined && previous === masterKey) {
    throw new ConfigError(
      "Invalid MASTER_KEY_PREVIOUS: it is the same key as MASTER_KEY; during a rotation " +
        "MASTER_KEY is the new key and MASTER_KEY_PREVIOUS the old one",
      { details: { variable: "MASTER_KEY_PREVIOUS" } },
    );
  }
  return previous;
}

/**
 * Validates a fully specified environment into a `Config` (no generated secrets, no I/O).
 * `npm start` in development uses `parseEnv` + `infra/dev-secrets.ts` + `resolveConfig` instead.
 *
 * @throws ConfigError naming the malformed or missing variable
 * @example
 * const config = loadConfig({ ...process.env, PORT: "0" });
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return resolveConfig(parseEnv(env));
}
