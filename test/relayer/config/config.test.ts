import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { parseUnits } from "ethers";
import {
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_CONFIRMATIONS,
  DEFAULT_PORT,
  DEFAULT_RPC_MAX_BATCH,
  DEFAULT_STUCK_AFTER_BLOCKS,
  loadConfig,
  missingDevSecrets,
  parseEnv,
  REPO_ROOT,
  resolveConfig,
} from "../../../relayer/src/config.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import { ConfigError } from "../../../relayer/src/errors.js";

const ADMIN_TOKEN = `ent_admin_${"ab".repeat(32)}`;
const MASTER_KEY = "cd".repeat(32);
const OPERATOR_KEY = `0x${"12".repeat(32)}`;
const FULL = {
  ADMIN_TOKEN,
  MASTER_KEY,
  OPERATOR_PRIVATE_KEY: OPERATOR_KEY,
  RPC_URL: "http://10.0.0.5:8545",
  DATABASE_URL: "postgres://relayer:pw@db:5432/relayer",
};
const DEV_SECRETS = { adminToken: ADMIN_TOKEN, masterKey: MASTER_KEY };

/** Asserts `run` throws a ConfigError naming `variable`, and that `secret` is not in the message. */
function assertConfigError(run: () => unknown, variable: string, secret?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.match(error.message, new RegExp(variable));
    if (secret !== undefined)
      assert.ok(!error.message.includes(secret), "message echoes the secret");
    return true;
  });
}

describe("parseEnv", () => {
  test("applies the defaults with nothing set", () => {
    const settings = parseEnv({});
    assert.equal(settings.nodeEnv, "development");
    assert.equal(settings.host, "127.0.0.1");
    assert.equal(settings.port, DEFAULT_PORT);
    assert.equal(settings.dataDir, path.join(REPO_ROOT, ".data"));
    assert.equal(settings.rpcUrl, undefined);
    assert.equal(settings.databaseUrl, undefined);
    assert.equal(settings.coinSymbol, "COIN");
    assert.equal(settings.logLevel, "info");
    assert.equal(settings.apiKeyRateLimitPerMinute, 60);
    assert.equal(settings.bodyLimitBytes, DEFAULT_BODY_LIMIT_BYTES);
    assert.equal(settings.anvilPort, 8545);
    assert.equal(settings.embeddedPostgresPort, undefined);
    assert.equal(settings.webhookAllowLocal, false);
    assert.equal(settings.devFaucetAmountWei, undefined);
    assert.equal(settings.role, "all");
  });

  test("RELAYER_ROLE: all, api or worker; a split needs the shared node and database", () => {
    assert.equal(parseEnv({ ...FULL, RELAYER_ROLE: "api" }).role, "api");
    assert.equal(parseEnv({ ...FULL, RELAYER_ROLE: "worker" }).role, "worker");
    assertConfigError(() => parseEnv({ ...FULL, RELAYER_ROLE: "engine" }), "RELAYER_ROLE");
    assertConfigError(
      () => parseEnv({ ...FULL, RPC_URL: "", RELAYER_ROLE: "worker" }),
      "Missing RPC_URL: required with RELAYER_ROLE=worker",
    );
    assertConfigError(
      () => parseEnv({ RELAYER_ROLE: "api" }),
      "Missing RPC_URL, DATABASE_URL: required with RELAYER_ROLE=api",
    );
  });

  test("treats empty strings as unset", () => {
    assert.equal(parseEnv({ PORT: "", RPC_URL: " ", ADMIN_TOKEN: "" }).port, DEFAULT_PORT);
  });

  test("accepts PORT 0 and rejects ports out of range or not numeric", () => {
    assert.equal(parseEnv({ PORT: "0" }).port, 0);
    assert.equal(parseEnv({ PORT: "65535" }).port, 65535);
    assertConfigError(() => parseEnv({ PORT: "65536" }), "PORT");
    assertConfigError(() => parseEnv({ PORT: "80a" }), "PORT");
    assertConfigError(() => parseEnv({ PORT: "-1" }), "PORT");
  });

  test("ANVIL_PORT and EMBEDDED_PG_PORT must be 1-65535", () => {
    assert.equal(parseEnv({ ANVIL_PORT: "18545" }).anvilPort, 18545);
    assert.equal(parseEnv({ EMBEDDED_PG_PORT: "54400" }).embeddedPostgresPort, 54400);
    assertConfigError(() => parseEnv({ ANVIL_PORT: "0" }), "ANVIL_PORT");
    assertConfigError(() => parseEnv({ EMBEDDED_PG_PORT: "x" }), "EMBEDDED_PG_PORT");
  });

  test("HOST accepts names and addresses, rejects junk", () => {
    assert.equal(parseEnv({ HOST: "0.0.0.0" }).host, "0.0.0.0");
    assert.equal(parseEnv({ HOST: "::1" }).host, "::1");
    assertConfigError(() => parseEnv({ HOST: "a b" }), "HOST");
  });

  test("DATA_DIR and DEPLOYMENTS_FILE resolve to absolute paths", () => {
    const settings = parseEnv(
      { DATA_DIR: "tmp/data", DEPLOYMENTS_FILE: "d/1236.json" },
      "/srv/app",
    );
    assert.equal(settings.dataDir, "/srv/app/tmp/data");
    assert.equal(settings.deploymentsFile, "/srv/app/d/1236.json");
    assert.equal(parseEnv({ DATA_DIR: "/var/lib/rwa" }).dataDir, "/var/lib/rwa");
  });

  test("RPC_URL must be one or more http(s) URLs (the JSON-RPC client speaks HTTP only)", () => {
    assert.equal(parseEnv({ RPC_URL: "https://rpc.example/v1" }).rpcUrl, "https://rpc.example/v1");
    assertConfigError(() => parseEnv({ RPC_URL: "ws://127.0.0.1:8546" }), "RPC_URL");
    assertConfigError(() => parseEnv({ RPC_URL: "localhost:8545" }), "RPC_URL");
    assertConfigError(() => parseEnv({ RPC_URL: "ftp://x" }), "RPC_URL");
  });

  test("DATABASE_URL must be a postgres URL and its value is never echoed", () => {
    assert.equal(
      parseEnv({ DATABASE_URL: "postgresql://u:p@h/db" }).databaseUrl,
      "postgresql://u:p@h/db",
    );
    assertConfigError(
      () => parseEnv({ DATABASE_URL: "mysql://u:hunter2@h/db" }),
      "DATABASE_URL",
      "hunter2",
    );
  });

  test("ADMIN_TOKEN must be ent_admin_ + 64 lower-case hex; a bad value is not echoed", () => {
    assert.equal(parseEnv({ ADMIN_TOKEN }).adminToken, ADMIN_TOKEN);
    const bad = `ent_admin_${"zz".repeat(32)}`;
    assertConfigError(() => parseEnv({ ADMIN_TOKEN: bad }), "ADMIN_TOKEN", bad);
    assertConfigError(
      () => parseEnv({ ADMIN_TOKEN: `ent_admin_${"ab".repeat(31)}` }),
      "ADMIN_TOKEN",
    );
    assertConfigError(() => parseEnv({ ADMIN_TOKEN: "ab".repeat(32) }), "ADMIN_TOKEN");
  });

  test("MASTER_KEY must be 64 hex characters; a bad value is not echoed", () => {
    assert.equal(parseEnv({ MASTER_KEY: MASTER_KEY.toUpperCase() }).masterKey, MASTER_KEY);
    const bad = "ab".repeat(31);
    assertConfigError(() => parseEnv({ MASTER_KEY: bad }), "MASTER_KEY", bad);
    assertConfigError(() => parseEnv({ MASTER_KEY: `0x${"ab".repeat(32)}` }), "MASTER_KEY");
  });

  test("OPERATOR_PRIVATE_KEY must be 0x + 64 hex; a bad value is not echoed", () => {
    assert.equal(parseEnv({ OPERATOR_PRIVATE_KEY: OPERATOR_KEY }).operatorPrivateKey, OPERATOR_KEY);
    const bad = "12".repeat(32);
    assertConfigError(() => parseEnv({ OPERATOR_PRIVATE_KEY: bad }), "OPERATOR_PRIVATE_KEY", bad);
  });

  test("NODE_ENV and LOG_LEVEL accept only known values", () => {
    assert.equal(parseEnv({ NODE_ENV: "test" }).nodeEnv, "test");
    assert.equal(parseEnv({ LOG_LEVEL: "debug" }).logLevel, "debug");
    assertConfigError(() => parseEnv({ NODE_ENV: "prod" }), "NODE_ENV");
    assertConfigError(() => parseEnv({ LOG_LEVEL: "verbose" }), "LOG_LEVEL");
  });

  test("WEBHOOK_ALLOW_LOCAL is true or false only and off unless set", () => {
    assert.equal(parseEnv({ WEBHOOK_ALLOW_LOCAL: "false" }).webhookAllowLocal, false);
    assert.equal(
      parseEnv({ WEBHOOK_ALLOW_LOCAL: "true", NODE_ENV: "production" }).webhookAllowLocal,
      true,
    );
    assert.equal(parseEnv({ NODE_ENV: "production" }).webhookAllowLocal, false);
    assertConfigError(() => parseEnv({ WEBHOOK_ALLOW_LOCAL: "1" }), "WEBHOOK_ALLOW_LOCAL");
    assertConfigError(() => parseEnv({ WEBHOOK_ALLOW_LOCAL: "yes" }), "WEBHOOK_ALLOW_LOCAL");
  });

  test("APPROVAL_EXPIRY_SECONDS is 24 h unless set, 1 s to 30 days", () => {
    assert.equal(parseEnv({}).approvalExpiryMs, 86_400_000);
    assert.equal(parseEnv({ APPROVAL_EXPIRY_SECONDS: "3600" }).approvalExpiryMs, 3_600_000);
    assertConfigError(() => parseEnv({ APPROVAL_EXPIRY_SECONDS: "0" }), "APPROVAL_EXPIRY_SECONDS");
    assertConfigError(
      () => parseEnv({ APPROVAL_EXPIRY_SECONDS: String(30 * 86_400 + 1) }),
      "APPROVAL_EXPIRY_SECONDS",
    );
    assertConfigError(() => parseEnv({ APPROVAL_EXPIRY_SECONDS: "1h" }), "APPROVAL_EXPIRY_SECONDS");
    assert.equal(
      resolveConfig(parseEnv({ APPROVAL_EXPIRY_SECONDS: "60" }), DEV_SECRETS).approvalExpiryMs,
      60_000,
    );
  });

  test("OPERATOR_FOUR_EYES is on unless off, and cannot be off in production", () => {
    assert.equal(parseEnv({}).operatorFourEyes, true);
    assert.equal(parseEnv({ OPERATOR_FOUR_EYES: "off" }).operatorFourEyes, false);
    assertConfigError(() => parseEnv({ OPERATOR_FOUR_EYES: "no" }), "OPERATOR_FOUR_EYES");
    assert.equal(
      resolveConfig(parseEnv({ OPERATOR_FOUR_EYES: "off" }), DEV_SECRETS).operatorFourEyes,
      false,
    );
    assertConfigError(
      () => loadConfig({ ...FULL, NODE_ENV: "production", OPERATOR_FOUR_EYES: "off" }),
      "OPERATOR_FOUR_EYES",
    );
  });

  test("CONSOLE_KEY_SIGN_IN is off unless on, and cannot be on in production", () => {
    assert.equal(parseEnv({}).consoleKeySignIn, false);
    assert.equal(parseEnv({ CONSOLE_KEY_SIGN_IN: "on" }).consoleKeySignIn, true);
    assertConfigError(() => parseEnv({ CONSOLE_KEY_SIGN_IN: "true" }), "CONSOLE_KEY_SIGN_IN");
    assertConfigError(
      () => loadConfig({ ...FULL, NODE_ENV: "production", CONSOLE_KEY_SIGN_IN: "on" }),
      "CONSOLE_KEY_SIGN_IN",
    );
  });

  test("COIN_SYMBOL is 1-11 letters or digits", () => {
    assert.equal(parseEnv({ COIN_SYMBOL: "ETH" }).coinSymbol, "ETH");
    assertConfigError(() => parseEnv({ COIN_SYMBOL: "A B" }), "COIN_SYMBOL");
    assertConfigError(() => parseEnv({ COIN_SYMBOL: "ABCDEFGHIJKL" }), "COIN_SYMBOL");
  });

  test("DEV_FAUCET_AMOUNT is a decimal coin amount with up to 18 decimals", () => {
    assert.equal(parseEnv({ DEV_FAUCET_AMOUNT: "2.5" }).devFaucetAmountWei, parseUnits("2.5", 18));
    assert.equal(parseEnv({ DEV_FAUCET_AMOUNT: "0" }).devFaucetAmountWei, 0n);
    assertConfigError(() => parseEnv({ DEV_FAUCET_AMOUNT: "-1" }), "DEV_FAUCET_AMOUNT");
    assertConfigError(() => parseEnv({ DEV_FAUCET_AMOUNT: "1e3" }), "DEV_FAUCET_AMOUNT");
    assertConfigError(
      () => parseEnv({ DEV_FAUCET_AMOUNT: `0.${"1".repeat(19)}` }),
      "DEV_FAUCET_AMOUNT",
    );
  });

  test("API_KEY_RATE_LIMIT_PER_MINUTE is a positive integer", () => {
    assert.equal(parseEnv({ API_KEY_RATE_LIMIT_PER_MINUTE: "600" }).apiKeyRateLimitPerMinute, 600);
    assertConfigError(
      () => parseEnv({ API_KEY_RATE_LIMIT_PER_MINUTE: "0" }),
      "API_KEY_RATE_LIMIT_PER_MINUTE",
    );
    assertConfigError(
      () => parseEnv({ API_KEY_RATE_LIMIT_PER_MINUTE: "1.5" }),
      "API_KEY_RATE_LIMIT_PER_MINUTE",
    );
  });

  test("BODY_LIMIT takes bytes or kb/mb, between 1kb and 64mb", () => {
    assert.equal(parseEnv({ BODY_LIMIT: "65536" }).bodyLimitBytes, 65536);
    assert.equal(parseEnv({ BODY_LIMIT: "512kb" }).bodyLimitBytes, 512 * 1024);
    assert.equal(parseEnv({ BODY_LIMIT: "1MB" }).bodyLimitBytes, 1024 * 1024);
    assertConfigError(() => parseEnv({ BODY_LIMIT: "10" }), "BODY_LIMIT");
    assertConfigError(() => parseEnv({ BODY_LIMIT: "1gb" }), "BODY_LIMIT");
  });

  test("SHUTDOWN_TIMEOUT_MS is a positive integer", () => {
    assert.equal(parseEnv({ SHUTDOWN_TIMEOUT_MS: "3000" }).shutdownTimeoutMs, 3000);
    assertConfigError(() => parseEnv({ SHUTDOWN_TIMEOUT_MS: "soon" }), "SHUTDOWN_TIMEOUT_MS");
  });
});

describe("resolveConfig", () => {
  test("development with nothing set uses the dev secrets, the anvil key and a 100 coin faucet", () => {
    const config = resolveConfig(parseEnv({}), DEV_SECRETS);
    assert.equal(config.adminToken, ADMIN_TOKEN);
    assert.equal(config.masterKey, MASTER_KEY);
    assert.equal(config.operatorPrivateKey, ANVIL_DEV_PRIVATE_KEY);
    assert.equal(config.chainId, 1236);
    assert.equal(config.devFaucetAmountWei, parseUnits("100", 18));
  });

  test("environment secrets win over dev secrets", () => {
    const other = `ent_admin_${"ef".repeat(32)}`;
    assert.equal(resolveConfig(parseEnv({ ADMIN_TOKEN: other }), DEV_SECRETS).adminToken, other);
  });

  test("missingDevSecrets lists what development must generate", () => {
    assert.deepEqual(missingDevSecrets(parseEnv({})), ["adminToken", "masterKey"]);
    assert.deepEqual(missingDevSecrets(parseEnv({ ADMIN_TOKEN })), ["masterKey"]);
    assert.deepEqual(missingDevSecrets(parseEnv({ ADMIN_TOKEN, MASTER_KEY })), []);
  });

  test("without dev secrets, a missing ADMIN_TOKEN or MASTER_KEY is an error naming it", () => {
    assertConfigError(() => loadConfig({}), "ADMIN_TOKEN");
    assertConfigError(() => loadConfig({ ADMIN_TOKEN }), "MASTER_KEY");
  });

  test("MASTER_KEY_PREVIOUS is the old key of a rotation, beside MASTER_KEY; a bad value is not echoed", () => {
    const previous = "EF".repeat(32);
    const config = loadConfig({ ...FULL, MASTER_KEY_PREVIOUS: previous });
    assert.equal(config.masterKey, MASTER_KEY);
    assert.equal(config.masterKeyPrevious, previous.toLowerCase());
    assert.equal(loadConfig(FULL).masterKeyPrevious, undefined);
    const bad = "not-a-key-secret";
    assertConfigError(() => parseEnv({ MASTER_KEY_PREVIOUS: bad }), "MASTER_KEY_PREVIOUS", bad);
    assertConfigError(
      () => resolveConfig(parseEnv({ ADMIN_TOKEN, MASTER_KEY_PREVIOUS: previous }), DEV_SECRETS),
      "set it together with MASTER_KEY",
    );
    assertConfigError(
      () => loadConfig({ ...FULL, MASTER_KEY_PREVIOUS: MASTER_KEY.toUpperCase() }),
      "it is the same key as MASTER_KEY",
    );
  });

  test("development takes masterKeyPrevious from the secrets file only with the file's master key", () => {
    const masterKeyPrevious = "ef".repeat(32);
    const secrets = { ...DEV_SECRETS, masterKeyPrevious };
    assert.equal(resolveConfig(parseEnv({}), secrets).masterKeyPrevious, masterKeyPrevious);
    const own = "01".repeat(32);
    assert.equal(
      resolveConfig(parseEnv({ MASTER_KEY: own }), secrets).masterKeyPrevious,
      undefined,
      "an explicit MASTER_KEY does not pair with the file's previous key",
    );
    assert.equal(
      resolveConfig(parseEnv({ ...FULL, NODE_ENV: "production" }), secrets).masterKeyPrevious,
      undefined,
    );
  });

  test("with RPC_URL the anvil dev key is not a default: OPERATOR_PRIVATE_KEY is required", () => {
    assertConfigError(
      () => resolveConfig(parseEnv({ RPC_URL: "http://127.0.0.1:9545" }), DEV_SECRETS),
      "OPERATOR_PRIVATE_KEY",
    );
    const config = resolveConfig(
      parseEnv({ RPC_URL: "http://127.0.0.1:9545", OPERATOR_PRIVATE_KEY: OPERATOR_KEY }),
      DEV_SECRETS,
    );
    assert.equal(config.operatorPrivateKey, OPERATOR_KEY);
    assert.equal(config.devFaucetAmountWei, 0n, "no faucet by default off the embedded chain");
  });

  test("production with everything set loads, with the faucet off", () => {
    const config = loadConfig({ ...FULL, NODE_ENV: "production" });
    assert.equal(config.nodeEnv, "production");
    assert.equal(config.rpcUrl, FULL.RPC_URL);
    assert.equal(config.databaseUrl, FULL.DATABASE_URL);
    assert.equal(config.devFaucetAmountWei, 0n);
    assert.equal(config.webhookAllowLocal, false);
  });

  for (const variable of [
    "RPC_URL",
    "DATABASE_URL",
    "ADMIN_TOKEN",
    "MASTER_KEY",
    "OPERATOR_PRIVATE_KEY",
  ] as const) {
    test(`production refuses to start without ${variable}`, () => {
      const env: NodeJS.ProcessEnv = { ...FULL, NODE_ENV: "production" };
      delete env[variable];
      assertConfigError(() => loadConfig(env), variable);
    });
  }

  test("production ignores generated dev secrets", () => {
    const env: NodeJS.ProcessEnv = { ...FULL, NODE_ENV: "production" };
    delete env.ADMIN_TOKEN;
    assertConfigError(() => resolveConfig(parseEnv(env), DEV_SECRETS), "ADMIN_TOKEN");
  });

  test("production refuses the dev faucet", () => {
    assertConfigError(
      () => loadConfig({ ...FULL, NODE_ENV: "production", DEV_FAUCET_AMOUNT: "5" }),
      "DEV_FAUCET_AMOUNT",
    );
    assert.equal(
      loadConfig({ ...FULL, NODE_ENV: "production", DEV_FAUCET_AMOUNT: "0" }).devFaucetAmountWei,
      0n,
    );
  });

  test("production refuses WEBHOOK_ALLOW_LOCAL=true with a clear ConfigError, and accepts false", () => {
    assert.throws(
      () => loadConfig({ ...FULL, NODE_ENV: "production", WEBHOOK_ALLOW_LOCAL: "true" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^Invalid WEBHOOK_ALLOW_LOCAL: local and private webhook targets are refused in production/.test(
          error.message,
        ),
    );
    assert.equal(
      loadConfig({ ...FULL, NODE_ENV: "production", WEBHOOK_ALLOW_LOCAL: "false" })
        .webhookAllowLocal,
      false,
    );
    assert.equal(loadConfig({ ...FULL, WEBHOOK_ALLOW_LOCAL: "true" }).webhookAllowLocal, true);
  });

  test("METRICS_TOKEN and PUBLIC_BASE_URL are optional, validated, and the token is never quoted", () => {
    const token = "m".repeat(40);
    assert.equal(loadConfig({ ...FULL, METRICS_TOKEN: token }).metricsToken, token);
    assert.equal(loadConfig(FULL).metricsToken, undefined);
    assertConfigError(() => parseEnv({ METRICS_TOKEN: "short" }), "METRICS_TOKEN", "short");
    assert.equal(
      loadConfig({ ...FULL, PUBLIC_BASE_URL: "https://api.example.com/rwa/" }).publicBaseUrl,
      "https://api.example.com/rwa",
    );
    assertConfigError(() => parseEnv({ PUBLIC_BASE_URL: "ftp://x" }), "PUBLIC_BASE_URL");
    assertConfigError(
      () => parseEnv({ PUBLIC_BASE_URL: "https://u:p@api.example.com" }),
      "PUBLIC_BASE_URL",
    );
  });

  test("CONFIRMATIONS is a whole number from 0 to 1000, default 0 on any chain", () => {
    assert.equal(parseEnv({}).confirmations, undefined);
    assert.equal(resolveConfig(parseEnv({}), DEV_SECRETS).confirmations, DEFAULT_CONFIRMATIONS);
    assert.equal(loadConfig(FULL).confirmations, 0);
    assert.equal(loadConfig({ ...FULL, CONFIRMATIONS: "0" }).confirmations, 0);
    assert.equal(loadConfig({ ...FULL, CONFIRMATIONS: "12" }).confirmations, 12);
    for (const bad of ["-1", "1.5", "two", "1001"])
      assertConfigError(() => parseEnv({ CONFIRMATIONS: bad }), "CONFIRMATIONS");
  });

  test("STUCK_AFTER_BLOCKS is a whole number of blocks (0: never), default 20", () => {
    assert.equal(loadConfig(FULL).stuckAfterBlocks, DEFAULT_STUCK_AFTER_BLOCKS);
    assert.equal(DEFAULT_STUCK_AFTER_BLOCKS, 20);
    assert.equal(loadConfig({ ...FULL, STUCK_AFTER_BLOCKS: "0" }).stuckAfterBlocks, 0);
    assert.equal(loadConfig({ ...FULL, STUCK_AFTER_BLOCKS: "50" }).stuckAfterBlocks, 50);
    for (const bad of ["-1", "1.5", "ten", "100001"])
      assertConfigError(() => parseEnv({ STUCK_AFTER_BLOCKS: bad }), "STUCK_AFTER_BLOCKS");
  });

  test("INDEXER_CONFIRMATIONS refuses to start and names CONFIRMATIONS", () => {
    assert.throws(
      () => parseEnv({ INDEXER_CONFIRMATIONS: "3" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /INDEXER_CONFIRMATIONS/.test(error.message) &&
        /CONFIRMATIONS=N-1/.test(error.message),
    );
    assert.equal(parseEnv({ INDEXER_CONFIRMATIONS: "" }).confirmations, undefined);
  });

  test("RPC_MAX_BATCH is 1-10000, default 100", () => {
    assert.equal(loadConfig(FULL).rpcMaxBatch, DEFAULT_RPC_MAX_BATCH);
    assert.equal(loadConfig({ ...FULL, RPC_MAX_BATCH: "20" }).rpcMaxBatch, 20);
    for (const bad of ["0", "10001", "many"])
      assertConfigError(() => parseEnv({ RPC_MAX_BATCH: bad }), "RPC_MAX_BATCH");
  });

  test("WEBHOOK_SECRET_GRACE_SECONDS defaults to 24 h and WEBHOOK_MANUAL_PER_MINUTE to 30", () => {
    assert.equal(loadConfig(FULL).webhookSecretGraceSeconds, 86_400);
    assert.equal(
      loadConfig({ ...FULL, WEBHOOK_SECRET_GRACE_SECONDS: "60" }).webhookSecretGraceSeconds,
      60,
    );
    assert.equal(loadConfig(FULL).webhookManualPerMinute, 30);
    assert.equal(loadConfig({ ...FULL, WEBHOOK_MANUAL_PER_MINUTE: "5" }).webhookManualPerMinute, 5);
    for (const bad of ["0", "-5", "1h", "2592001"])
      assertConfigError(
        () => parseEnv({ WEBHOOK_SECRET_GRACE_SECONDS: bad }),
        "WEBHOOK_SECRET_GRACE_SECONDS",
      );
    for (const bad of ["0", "x", "10001"])
      assertConfigError(
        () => parseEnv({ WEBHOOK_MANUAL_PER_MINUTE: bad }),
        "WEBHOOK_MANUAL_PER_MINUTE",
      );
  });

  test("WEBHOOK_BACKOFF_BASE_MS is a positive number of ms up to an hour, default 10 s", () => {
    assert.equal(loadConfig(FULL).webhookBackoffBaseMs, 10_000);
    assert.equal(loadConfig({ ...FULL, WEBHOOK_BACKOFF_BASE_MS: "200" }).webhookBackoffBaseMs, 200);
    for (const bad of ["0", "-5", "10s", "3600001"])
      assertConfigError(
        () => parseEnv({ WEBHOOK_BACKOFF_BASE_MS: bad }),
        "WEBHOOK_BACKOFF_BASE_MS",
      );
  });

  test("COIN_PRICE_* are validated into config.coinPrice", () => {
    assert.deepEqual(loadConfig(FULL).coinPrice, {
      fixedUsd: undefined,
      url: undefined,
      ttlSeconds: 60,
    });
    assert.deepEqual(
      loadConfig({
        ...FULL,
        COIN_PRICE_USD: "2.50",
        COIN_PRICE_URL: "https://prices.example/coin",
        COIN_PRICE_TTL_SECONDS: "30",
      }).coinPrice,
      { fixedUsd: "2.50", url: "https://prices.example/coin", ttlSeconds: 30 },
    );
    assertConfigError(() => parseEnv({ COIN_PRICE_USD: "$2" }), "COIN_PRICE_USD");
    assertConfigError(() => parseEnv({ COIN_PRICE_URL: "prices.example" }), "COIN_PRICE_URL");
    assertConfigError(() => parseEnv({ COIN_PRICE_TTL_SECONDS: "0" }), "COIN_PRICE_TTL_SECONDS");
  });

  test("CONSOLE_BUILD is auto or off", () => {
    assert.equal(parseEnv({}).consoleBuild, "auto");
    assert.equal(parseEnv({ CONSOLE_BUILD: "off" }).consoleBuild, "off");
    assertConfigError(() => parseEnv({ CONSOLE_BUILD: "no" }), "CONSOLE_BUILD");
  });

  test("production with nothing set names every missing variable", () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: "production" }),
      /Missing RPC_URL, DATABASE_URL, ADMIN_TOKEN, MASTER_KEY, OPERATOR_PRIVATE_KEY/,
    );
  });
});
