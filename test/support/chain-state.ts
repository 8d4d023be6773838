import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureArtifacts } from "../../deploy/artifacts.js";
import { deployAll } from "../../deploy/deploy.js";
import { parseDeployment, type LoadedDeployment } from "../../deploy/deployment-file.js";
import {
  findFreePort,
  startAnvil,
  type AnvilHandle,
  type StartAnvilOptions,
} from "../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../deploy/rpc.js";

/**
 * A chain with the contracts already on it. Deploying takes 1-4 s (five transactions and the
 * default asset types; the longer on a loaded machine), once per anvil; anvil loads a saved state
 * (`--load-state`) in a fraction of that. The state is made once per run: by scripts/test.sh
 * before the node:test files (`TEST_CHAIN_STATE_DIR`, `npm test`'s own folder), or, when a test
 * file runs on its own, by its first stack, in a folder removed when the process exits.
 *
 * The state keeps the deploy's blocks, receipts, logs and (`--preserve-historical-states`) the
 * state at each of them, so a relayer reading from the deploy block finds what a fresh deploy
 * would leave; the next block's timestamp is the clock's again.
 *
 * @example
 * const { anvil, deployment } = await startDeployedAnvil({ port: await findFreePort() });
 */

/** A saved chain: anvil's state file and the deployment record of the contracts on it. */
export interface DeployedChainState {
  stateFile: string;
  /** What `deployAll` wrote (addresses, deploy block, ABI hashes). */
  deployment: LoadedDeployment;
  /** The record's JSON text, for a stack that keeps its own `deployments/1236.json`. */
  deploymentJson: string;
}

const STATE_FILE = "anvil-state.json";
const DEPLOYMENT_FILE = "deployment.json";

let own: Promise<DeployedChainState> | undefined;

/**
 * Deploys the contracts on a fresh automining anvil, then stops it, which writes its state into
 * `dir` beside the deployment record (scripts/test.sh, through test/support/prepare-run.ts).
 */
export async function buildChainState(dir: string): Promise<DeployedChainState> {
  await ensureArtifacts({ mode: "auto" });
  const stateFile = path.join(dir, STATE_FILE);
  const deploymentFile = path.join(dir, DEPLOYMENT_FILE);
  const anvil = await startAnvil({
    port: await findFreePort(),
    blockTime: 0,
    reuseExisting: false,
    extraArgs: ["--dump-state", stateFile, "--preserve-historical-states"],
  });
  try {
    await deployAll({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile: deploymentFile,
      build: "never",
      log: () => {},
    });
  } finally {
    await anvil.stop(); // anvil writes the state on exit
  }
  if (!existsSync(stateFile)) throw new Error(`anvil wrote no state to ${stateFile}`);
  return readChainState(dir);
}

function readChainState(dir: string): DeployedChainState {
  const deploymentJson = readFileSync(path.join(dir, DEPLOYMENT_FILE), "utf8");
  return {
    stateFile: path.join(dir, STATE_FILE),
    deployment: parseDeployment(JSON.parse(deploymentJson), path.join(dir, DEPLOYMENT_FILE)),
    deploymentJson,
  };
}

/** The run's saved chain (`TEST_CHAIN_STATE_DIR`), else this process's own, made on first use. */
export function deployedChainState(): Promise<DeployedChainState> {
  const shared = process.env.TEST_CHAIN_STATE_DIR;
  if (shared !== undefined && existsSync(path.join(shared, DEPLOYMENT_FILE))) {
    return Promise.resolve(readChainState(shared));
  }
  own ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-chain-state-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return buildChainState(dir);
  })();
  own.catch(() => (own = undefined));
  return own;
}

/**
 * Starts an automining anvil from the saved chain: the contracts are deployed and the default
 * asset types registered, as after `deployAll`.
 */
export async function startDeployedAnvil(
  options: Pick<StartAnvilOptions, "port">,
): Promise<{ anvil: AnvilHandle; deployment: LoadedDeployment; deploymentJson: string }> {
  const { stateFile, deployment, deploymentJson } = await deployedChainState();
  const anvil = await startAnvil({
    port: options.port,
    blockTime: 0,
    reuseExisting: false,
    extraArgs: ["--load-state", stateFile],
  });
  return { anvil, deployment, deploymentJson };
}

/**
 * Writes the saved chain's deployment record to `file` (a relayer process's `DEPLOYMENTS_FILE`),
 * as `deployAll` would have.
 */
export function writeDeploymentRecord(file: string, deploymentJson: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, deploymentJson);
}

/**
 * The environment of a recovery command (`backupCommand`, `restoreCommand`, `reindexCommand`)
 * pointed at a running test stack: its database, master key and node, and the saved chain's
 * deployment record written to `dir/deployments/1236.json` (`DEPLOYMENTS_FILE`).
 */
export async function recoveryCommandEnv(
  stack: { testDatabase: { url: string }; rpcUrl: string; ctx: { config: { masterKey: string } } },
  dir: string,
): Promise<Record<string, string>> {
  const deploymentFile = path.join(dir, "deployments", "1236.json");
  writeDeploymentRecord(deploymentFile, (await deployedChainState()).deploymentJson);
  return {
    DATABASE_URL: stack.testDatabase.url,
    MASTER_KEY: stack.ctx.config.masterKey,
    RPC_URL: stack.rpcUrl,
    DEPLOYMENTS_FILE: deploymentFile,
    DATA_DIR: path.join(dir, "data"),
  };
}
