/**
 * Test-only relayer process (until main.ts starts the engine): serves the app and
 * runs the engine against an existing database and chain. Configured by environment:
 * DATABASE_URL, RPC_URL, CONTRACTS (JSON), MASTER_KEY, ADMIN_TOKEN, LEASE_MS. Prints
 * `READY <port>` on stdout once listening.
 */
import type { AddressInfo } from "node:net";
import { createLogger } from "../../../relayer/src/logger.js";
import {
  DEFAULT_COIN_PRICE_TTL_SECONDS,
  DEFAULT_CONFIRMATIONS,
  DEFAULT_RPC_MAX_BATCH,
  DEFAULT_WEBHOOK_BACKOFF_BASE_MS,
} from "../../../relayer/src/config.js";
import type { Config } from "../../../relayer/src/context.js";
import { createDatabase } from "../../../relayer/src/db/client.js";
import { createApp } from "../../../relayer/src/http/app.js";
import { createAppContext } from "../../../relayer/src/create-app-context.js";
import { startIndexer } from "../../../relayer/src/indexer/start-indexer.js";

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const config: Config = {
  nodeEnv: "test",
  host: "127.0.0.1",
  port: 0,
  httpListeners: 1,
  dataDir: "/tmp",
  rpcUrl: env("RPC_URL"),
  databaseUrl: env("DATABASE_URL"),
  adminToken: env("ADMIN_TOKEN"),
  masterKey: env("MASTER_KEY"),
  operatorPrivateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  chainId: 1236,
  coinSymbol: "COIN",
  webhookAllowLocal: true,
  devFaucetAmountWei: 0n,
  logLevel: "warn",
  apiKeyRateLimitPerMinute: 100_000,
  bodyLimitBytes: 256 * 1024,
  confirmations: DEFAULT_CONFIRMATIONS,
  rpcMaxBatch: DEFAULT_RPC_MAX_BATCH,
  webhookBackoffBaseMs: DEFAULT_WEBHOOK_BACKOFF_BASE_MS,
  coinPrice: { fixedUsd: undefined, url: undefined, ttlSeconds: DEFAULT_COIN_PRICE_TTL_SECONDS },
};
const logger = createLogger({
  level: process.env.CHILD_LOG_LEVEL ?? "warn",
  destination: process.stderr,
});
const database = createDatabase(config.databaseUrl!);
const ctx = createAppContext({
  config,
  logger,
  database,
  rpcUrl: config.rpcUrl!,
  contracts: JSON.parse(env("CONTRACTS")),
  isLocalChain: true,
  engine: { sequencer: { leaseMs: Number(process.env.LEASE_MS ?? "15000"), claimIntervalMs: 500 } },
});
await ctx.engine.start();
await startIndexer(ctx, { lockPollMs: 500 });
const server = createApp(ctx).listen(0, "127.0.0.1", () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
