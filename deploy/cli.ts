/**
 * `npm run deploy [-- --force]`: deploys (or checks) the contracts on the chain at RPC_URL.
 *
 * Environment:
 *   RPC_URL               JSON-RPC endpoint (default http://127.0.0.1:8545)
 *   DEPLOYER_PRIVATE_KEY  0x-prefixed 32-byte hex key; optional only for a local anvil on 1236
 *   DEPLOYMENTS_FILE      record path (default deployments/<chainId>.json, or for a local anvil
 *                         ${DATA_DIR:-.data}/deployments/1236.json)
 *   REGISTRARS            comma-separated addresses to grant REGISTRAR_ROLE (optional)
 *   EXPECTED_CHAIN_ID     refuse to deploy unless the node reports this chain id (optional)
 *   EVM_VERSION           the EVM the contracts are compiled for (default berlin; deploy/evm-version.ts)
 *
 * Before sending anything it probes the node and refuses, naming the setting to change, when the
 * node cannot run the compiled bytecode (`npm run doctor` shows the same checks).
 */
import path from "node:path";
import { isAddress } from "ethers";
import { z } from "zod";
import { ensureArtifacts, PROJECT_ROOT } from "./artifacts.js";
import { ConfigError } from "./errors.js";
import { runCli } from "./run-cli.js";
import { DEFAULT_EVM_VERSION, EVM_VERSIONS, isEvmVersion } from "./evm-version.js";
import { ANVIL_DEV_PRIVATE_KEY, isLocalAnvil, probeNode } from "./rpc.js";

const USAGE = `Usage: npm run deploy [-- --force]

  --force   deploy new contracts even when the recorded ABI hashes differ from the build
  --help    show this text

Environment: RPC_URL, DEPLOYER_PRIVATE_KEY, DEPLOYMENTS_FILE, REGISTRARS, EXPECTED_CHAIN_ID, DATA_DIR,
EVM_VERSION (${EVM_VERSIONS.join(", ")}; default ${DEFAULT_EVM_VERSION})`;

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const envSchema = z.object({
  RPC_URL: optionalText
    .transform((value) => value ?? "http://127.0.0.1:8545")
    .pipe(z.url({ protocol: /^(https?|wss?)$/, error: "must be an http(s) or ws(s) URL" })),
  // The message never includes the value: it is a secret.
  DEPLOYER_PRIVATE_KEY: optionalText.pipe(
    z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, { error: "must be 0x followed by 64 hex digits" })
      .optional(),
  ),
  DEPLOYMENTS_FILE: optionalText,
  DATA_DIR: optionalText,
  REGISTRARS: optionalText.transform((value, context) => {
    const list = value === undefined ? [] : value.split(",").map((item) => item.trim());
    for (const item of list) {
      if (!isAddress(item))
        context.addIssue({ code: "custom", message: `"${String(item)}" is not an address` });
    }
    return list;
  }),
  EVM_VERSION: optionalText.refine(
    (value) => value === undefined || isEvmVersion(value.toLowerCase()),
    { error: `must be one of ${EVM_VERSIONS.join(", ")}` },
  ),
  EXPECTED_CHAIN_ID: optionalText.transform((value, context) => {
    if (value === undefined) return undefined;
    const chainId = Number(value);
    if (!Number.isInteger(chainId) || chainId <= 0) {
      context.addIssue({ code: "custom", message: "must be a positive integer" });
    }
    return chainId;
  }),
});

/** Parses argv and the environment; throws `ConfigError` naming the offending variable. */
export function parseCliConfig(argv: readonly string[], env: NodeJS.ProcessEnv) {
  let force = false;
  for (const arg of argv) {
    if (arg === "--force") force = true;
    else if (arg === "--help" || arg === "-h") return { help: true as const };
    else throw new ConfigError(`Unknown argument ${arg}`, { details: USAGE });
  }
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join("\n")}`);
  }
  return { help: false as const, force, ...parsed.data };
}

async function main(): Promise<void> {
  const config = parseCliConfig(process.argv.slice(2), process.env);
  if (config.help) {
    console.log(USAGE);
    return;
  }
  const log = (line: string) => console.log(line);
  log(`RPC_URL ${config.RPC_URL}`);
  const node = await probeNode(config.RPC_URL);
  const local = isLocalAnvil(node);
  log(`Node: ${node.clientVersion || "unknown client"}, chain id ${node.chainId}`);

  let key = config.DEPLOYER_PRIVATE_KEY;
  if (key === undefined) {
    if (!local) {
      throw new ConfigError(
        `DEPLOYER_PRIVATE_KEY is required: chain ${node.chainId} is not a local anvil on chain 1236`,
      );
    }
    log("DEPLOYER_PRIVATE_KEY not set: using anvil's first dev account (local anvil, chain 1236)");
    key = ANVIL_DEV_PRIVATE_KEY;
  }

  // A local anvil also has chain id 1236: keep its record out of deployments/1236.json, which
  // belongs to the real network and is committed.
  const dataDir = path.resolve(config.DATA_DIR ?? path.join(PROJECT_ROOT, ".data"));
  const outFile =
    config.DEPLOYMENTS_FILE ??
    (local ? path.join(dataDir, "deployments", `${node.chainId}.json`) : undefined);

  // deploy.js deploys through the generated typechain-types/: build (when missing or stale) before
  // it is imported, so this process loads the bindings of the current sources.
  await ensureArtifacts({ mode: "auto", log });
  const { deployAll } = await import("./deploy.js");
  const result = await deployAll({
    rpcUrl: config.RPC_URL,
    deployerPrivateKey: key,
    force: config.force,
    registrars: config.REGISTRARS,
    ...(outFile === undefined ? {} : { outFile }),
    ...(config.EXPECTED_CHAIN_ID === undefined
      ? {}
      : { expectedChainId: config.EXPECTED_CHAIN_ID }),
    log,
  });
  const { addresses } = result.deployment;
  log("");
  log(`Status             ${result.status}`);
  log(`AssetTypeRegistry  ${addresses.assetTypeRegistry}`);
  log(`AssetToken         ${addresses.assetToken}`);
  log(`Marketplace        ${addresses.marketplace}`);
  log(`Record             ${path.relative(process.cwd(), result.file)}`);
}

runCli(import.meta.url, main);
