import { existsSync } from "node:fs";
import path from "node:path";
import {
  getAddress,
  isError,
  keccak256,
  NonceManager,
  Wallet,
  type ContractTransactionResponse,
  type Provider,
  type Signer,
  type TransactionReceipt,
} from "ethers";
import { probeNode as probeDialect } from "../relayer/src/chain/rpc/node-dialect.js";
import { RpcClient } from "../relayer/src/chain/rpc/rpc-client.js";
import { RpcClientProvider } from "../relayer/src/chain/rpc/rpc-provider.js";
import {
  isInsufficientFunds,
  isRevert,
  isUnavailable,
} from "../relayer/src/chain/rpc/rpc-errors.js";
import { AssetToken__factory } from "../typechain-types/factories/AssetToken__factory.js";
import { AssetTypeRegistry__factory } from "../typechain-types/factories/AssetTypeRegistry__factory.js";
import { Marketplace__factory } from "../typechain-types/factories/Marketplace__factory.js";
import {
  abiHash,
  artifactsEvmVersion,
  CONTRACT_NAMES,
  ensureArtifacts,
  loadAllArtifacts,
  PROJECT_ROOT,
  type BuildMode,
  type ContractName,
} from "./artifacts.js";
import { DEFAULT_ASSET_TYPES } from "./asset-types.js";
import {
  defaultDeploymentFile,
  loadDeployment,
  parseDeployment,
  writeDeployment,
  type ContractRecord,
  type Deployment,
  type LoadedDeployment,
} from "./deployment-file.js";
import {
  AbiMismatchError,
  ArtifactError,
  DeployError,
  InsufficientFundsError,
  NodeUnsupportedError,
  RpcUnreachableError,
  WrongChainError,
} from "./errors.js";
import type { EvmVersion } from "./evm-version.js";
import { checkNode } from "./node-check.js";
import { probeNode } from "./rpc.js";

/** Options shared by `deployAll` and `deployAllWithSigner`. */
export interface DeployOptions {
  /** Where to write the record; default `<root>/deployments/<chainId>.json`. */
  outFile?: string;
  /** Progress lines (one per step); default `console.log`. */
  log?: (line: string) => void;
  /** Deploy new contracts even when the recorded ABI hashes differ from the current build. */
  force?: boolean;
  /** Extra accounts to grant `REGISTRAR_ROLE` on the registry (the deployer always has it). */
  registrars?: readonly string[];
  /** Refuse to run unless the node reports this chain id. */
  expectedChainId?: number;
  /** Artifacts: build when missing/stale ("auto", default), "always", or "never" (caller built). */
  build?: BuildMode;
  /** Repository root holding artifacts/ and deployments/; default this repository. */
  root?: string;
  /** Asset types to make sure are registered; default the 29 `DEFAULT_ASSET_TYPES`. */
  assetTypes?: readonly string[];
}

/** `deployAll` options: an RPC URL and the deployer's private key. */
export interface DeployAllOptions extends DeployOptions {
  rpcUrl: string;
  deployerPrivateKey: string;
}

/**
 * What a run did: `deployed` (no record before), `redeployed` (record replaced: chain reset or
 * `force`), or `up-to-date` (recorded contracts are live and match; no contract deployed).
 */
export type DeployStatus = "deployed" | "redeployed" | "up-to-date";

/** Result of `deployAll`. */
export interface DeployResult {
  status: DeployStatus;
  file: string;
  deployment: LoadedDeployment;
  /** Hashes of transactions sent during this run (empty when nothing was sent). */
  txHashes: string[];
}

/**
 * The TypeChain factories generated from the compiled artifacts (`typechain-types/`): what is
 * deployed, and the ABI whose hash the record keeps. A changed constructor or function is a type
 * error here, not a failed deployment.
 */
const FACTORIES = {
  AssetTypeRegistry: AssetTypeRegistry__factory,
  AssetToken: AssetToken__factory,
  Marketplace: Marketplace__factory,
} as const satisfies Record<ContractName, { abi: unknown; bytecode: string }>;

/** At most this many names per `registerTypes` transaction (about 75k gas each). */
const REGISTER_BATCH_SIZE = 40;

/**
 * Deploys AssetTypeRegistry, AssetToken and Marketplace (or checks an existing deployment),
 * registers the default asset types, grants roles and writes `deployments/<chainId>.json`.
 *
 * Idempotent: when the record's contracts are on chain with the current ABI it sends nothing
 * (except for missing types or registrar grants). When the record exists but the code is gone
 * (chain reset) it redeploys and overwrites the record. When ABI hashes differ it throws
 * `AbiMismatchError` unless `force` is set.
 *
 * @param options rpcUrl, deployerPrivateKey and the `DeployOptions`
 * @returns what was done, the record and its path
 * Before it sends anything it probes the node (`relayer/src/chain/rpc/node-dialect.ts`) and refuses
 * with `NodeUnsupportedError`, naming the setting to change, when the node cannot run the
 * compiled bytecode (PUSH0 on a pre-Shanghai chain, ...), instead of failing on "missing revert
 * data". The record keeps the EVM version the bytecode was compiled for.
 *
 * @throws RpcUnreachableError, WrongChainError, NodeUnsupportedError, InsufficientFundsError,
 *   AbiMismatchError, ArtifactError, DeploymentFileError (all `DeployError`)
 * @example
 * const { deployment } = await deployAll({ rpcUrl: "http://127.0.0.1:8545", deployerPrivateKey });
 * console.log(deployment.addresses.assetToken);
 */
export async function deployAll(options: DeployAllOptions): Promise<DeployResult> {
  const { rpcUrl, deployerPrivateKey, ...rest } = options;
  // Probe first: the chain id makes the provider's network static (no detection loop).
  const node = await probeNode(rpcUrl);
  // The relayer's one client and provider: its timeouts and failover, no response cache (a
  // cached pending nonce would be stale between two deploys).
  const provider = new RpcClientProvider(new RpcClient(rpcUrl), node.chainId, {
    pollingIntervalMs: 250,
  });
  try {
    const signer = new Wallet(deployerPrivateKey, provider);
    return await deployWithSigner(signer, rest, rpcUrl);
  } finally {
    provider.destroy();
  }
}

/**
 * Same as `deployAll`, with a signer connected to a provider (for callers that manage their own
 * provider, nonce manager or keystore). The node is probed first when the provider is an
 * `RpcClientProvider`; other providers skip that check (logged).
 */
export async function deployAllWithSigner(
  signer: Signer,
  options: DeployOptions = {},
): Promise<DeployResult> {
  return deployWithSigner(signer, options, "the RPC endpoint");
}

async function deployWithSigner(
  baseSigner: Signer,
  options: DeployOptions,
  rpcLabel: string,
): Promise<DeployResult> {
  // Count nonces locally: transactions follow each other faster than some nodes update "pending".
  const signer = baseSigner instanceof NonceManager ? baseSigner : new NonceManager(baseSigner);
  const provider = signer.provider;
  if (provider === null) throw new DeployError("The signer has no provider");
  const log = options.log ?? ((line: string) => console.log(line));
  const root = options.root ?? PROJECT_ROOT;

  const chainId = await rpc(rpcLabel, async () => Number((await provider.getNetwork()).chainId));
  if (options.expectedChainId !== undefined && options.expectedChainId !== chainId) {
    throw new WrongChainError(options.expectedChainId, chainId, "the deployment");
  }
  const deployer = getAddress(await signer.getAddress());
  log(`Chain ${chainId}, deployer ${deployer}`);

  await ensureArtifacts({ mode: options.build ?? "auto", root, log });
  await assertFactoriesMatchArtifacts(root);
  const evmVersion = await artifactsEvmVersion(root);
  log(`Contracts compiled for EVM ${evmVersion ?? "(unknown: no build info)"}`);
  await assertNodeCanRun(provider, rpcLabel, evmVersion, options.expectedChainId, log);
  const currentAbiHashes = Object.fromEntries(
    CONTRACT_NAMES.map((name) => [name, abiHash(FACTORIES[name].abi)]),
  ) as Record<ContractName, string>;

  const file = path.resolve(options.outFile ?? defaultDeploymentFile(chainId, root));
  const shown = path.relative(process.cwd(), file) || file;
  const assetTypes = options.assetTypes ?? DEFAULT_ASSET_TYPES;
  const registrars = (options.registrars ?? []).map((account) => getAddress(account));

  let status: DeployStatus = "deployed";
  if (existsSync(file)) {
    const recorded = await loadDeployment(file);
    if (recorded.chainId !== chainId) {
      throw new WrongChainError(recorded.chainId, chainId, shown);
    }
    const check = await checkRecorded(provider, recorded, currentAbiHashes, rpcLabel);
    if (check.kind === "live") {
      log(`Recorded deployment in ${shown} is live (code present, ABI hashes match)`);
      const txHashes = await converge(signer, recorded.addresses.assetTypeRegistry, {
        assetTypes,
        registrars,
        log,
      });
      log(
        txHashes.length === 0
          ? "Up to date: nothing to do"
          : `Up to date; sent ${txHashes.length} setup transaction(s)`,
      );
      return { status: "up-to-date", file, deployment: recorded, txHashes };
    }
    if (check.kind === "code-missing") {
      log(
        `Recorded contracts are not on chain ${chainId} (${check.reason}): the chain was reset. ` +
          `Redeploying and overwriting ${shown}`,
      );
    } else if (options.force === true) {
      log(`ABI of ${check.contracts.join(", ")} changed; --force given: deploying new contracts`);
    } else {
      throw new AbiMismatchError(shown, check.contracts);
    }
    status = "redeployed";
  }

  const balance = await rpc(rpcLabel, () => provider.getBalance(deployer));
  if (balance === 0n) throw new InsufficientFundsError(deployer, balance);

  const txHashes: string[] = [];
  const contracts: Partial<Record<ContractName, ContractRecord>> = {};
  const deployOne = async (
    name: ContractName,
    deploy: () => Promise<{ deploymentTransaction(): ContractTransactionResponse | null }>,
  ): Promise<string> => {
    log(`Deploying ${name}...`);
    const receipt = await send(`deploy ${name}`, deployer, provider, rpcLabel, async () => {
      const contract = await deploy();
      const tx = contract.deploymentTransaction();
      if (tx === null) throw new DeployError(`deploy ${name}: no deployment transaction`);
      return tx;
    });
    const address = receipt.contractAddress;
    if (address === null) throw new DeployError(`deploy ${name}: receipt has no contract address`);
    const code = await rpc(rpcLabel, () => provider.getCode(address));
    contracts[name] = {
      address: getAddress(address),
      txHash: receipt.hash,
      blockNumber: receipt.blockNumber,
      abiHash: currentAbiHashes[name],
      codeHash: keccak256(code),
    };
    txHashes.push(receipt.hash);
    log(`  ${name} at ${address} (block ${receipt.blockNumber}, tx ${receipt.hash})`);
    return getAddress(address);
  };

  const registry = await deployOne("AssetTypeRegistry", () =>
    new AssetTypeRegistry__factory(signer).deploy(deployer),
  );
  const token = await deployOne("AssetToken", () =>
    new AssetToken__factory(signer).deploy(registry, deployer),
  );
  const marketplace = await deployOne("Marketplace", () =>
    new Marketplace__factory(signer).deploy(token, deployer),
  );

  const setupTxHashes: { step: string; txHash: string }[] = [];
  // The token lets escrow hold restricted types and return frozen tokens to their sellers, and
  // releases listings on a forced transfer: it must know its marketplace (set once).
  const linked = await send("setMarketplace", deployer, provider, rpcLabel, () =>
    AssetToken__factory.connect(token, signer).setMarketplace(marketplace),
  );
  txHashes.push(linked.hash);
  setupTxHashes.push({ step: "setMarketplace", txHash: linked.hash });
  log(`  AssetToken.setMarketplace(${marketplace}) (tx ${linked.hash})`);
  const setupHashes = await converge(signer, registry, {
    assetTypes,
    registrars,
    log,
    record: setupTxHashes,
  });
  txHashes.push(...setupHashes);

  const deployment: Deployment = {
    chainId,
    deployer,
    blockNumber: contracts.AssetTypeRegistry!.blockNumber,
    timestamp: new Date().toISOString(),
    contracts: contracts as Record<ContractName, ContractRecord>,
    setupTxHashes,
    ...(evmVersion === undefined ? {} : { evmVersion }),
  };
  const loaded = parseDeployment(deployment, "new deployment");
  await writeDeployment(file, deployment);
  log(`Wrote ${shown}`);
  return { status, file, deployment: loaded, txHashes };
}

/**
 * Probes the node behind an `RpcClientProvider` and refuses (`NodeUnsupportedError`) when it
 * cannot run bytecode compiled for `evmVersion`; logs the probe's warnings.
 */
async function assertNodeCanRun(
  provider: Provider,
  rpcLabel: string,
  evmVersion: EvmVersion | undefined,
  expectedChainId: number | undefined,
  log: (line: string) => void,
): Promise<void> {
  if (!(provider instanceof RpcClientProvider)) {
    log("Node check skipped: the signer's provider is not the relayer's RPC client");
    return;
  }
  const dialect = await probeDialect(provider.rpc).catch((cause: unknown) => {
    throw new RpcUnreachableError(rpcLabel, cause);
  });
  // Host and port only: a URL's path or query may hold an API key.
  const node = provider.rpc.endpoints.map((e) => e.label).join(", ");
  const { problems, warnings } = checkNode(dialect, {
    node,
    evmVersion: evmVersion ?? "berlin",
    expectedChainId,
  });
  for (const warning of warnings) log(`Warning: ${warning}`);
  if (problems.length > 0)
    throw new NodeUnsupportedError(
      problems,
      "Nothing was sent. `npm run doctor` shows what the node supports.",
    );
  log(
    `Node supports the contracts' EVM (${dialect.evm.level === "unknown" ? "level not tested" : `${dialect.evm.level} or later`})`,
  );
}

type RecordCheck =
  | { kind: "live" }
  | { kind: "code-missing"; reason: string }
  | { kind: "abi-mismatch"; contracts: ContractName[] };

async function checkRecorded(
  provider: Provider,
  recorded: Deployment,
  currentAbiHashes: Record<ContractName, string>,
  rpcLabel: string,
): Promise<RecordCheck> {
  for (const name of CONTRACT_NAMES) {
    const entry = recorded.contracts[name];
    const code = await rpc(rpcLabel, () => provider.getCode(entry.address));
    if (code === "0x")
      return { kind: "code-missing", reason: `no code at ${name} ${entry.address}` };
    if (keccak256(code) !== entry.codeHash) {
      return { kind: "code-missing", reason: `other code at ${name} ${entry.address}` };
    }
  }
  const changed = CONTRACT_NAMES.filter(
    (name) => recorded.contracts[name].abiHash !== currentAbiHashes[name],
  );
  return changed.length === 0 ? { kind: "live" } : { kind: "abi-mismatch", contracts: changed };
}

/** Registers the asset types that are missing and grants the missing registrar roles. */
async function converge(
  signer: Signer,
  registryAddress: string,
  options: {
    assetTypes: readonly string[];
    registrars: readonly string[];
    log: (line: string) => void;
    record?: { step: string; txHash: string }[];
  },
): Promise<string[]> {
  const provider = signer.provider!;
  const deployer = getAddress(await signer.getAddress());
  const registry = AssetTypeRegistry__factory.connect(registryAddress, signer);
  const hashes: string[] = [];

  const registered = new Set<string>(await registry.allTypes());
  const missing = options.assetTypes.filter((name) => !registered.has(name));
  if (missing.length > 0) {
    for (let start = 0; start < missing.length; start += REGISTER_BATCH_SIZE) {
      const batch = missing.slice(start, start + REGISTER_BATCH_SIZE);
      options.log(`Registering ${batch.length} asset type(s)...`);
      const receipt = await send("registerTypes", deployer, provider, "the RPC endpoint", () =>
        registry.registerTypes(batch),
      );
      hashes.push(receipt.hash);
      options.record?.push({ step: `registerTypes(${batch.length})`, txHash: receipt.hash });
      options.log(`  registered (block ${receipt.blockNumber}, gas ${receipt.gasUsed})`);
    }
  } else {
    options.log(`All ${options.assetTypes.length} asset types already registered`);
  }

  for (const account of options.registrars) {
    const result = await grantRegistrar(signer, registryAddress, account);
    if (result.txHash === undefined) {
      options.log(`${account} already has REGISTRAR_ROLE`);
    } else {
      options.log(`Granted REGISTRAR_ROLE to ${account} (tx ${result.txHash})`);
      hashes.push(result.txHash);
      options.record?.push({
        step: `grantRole(REGISTRAR_ROLE, ${account})`,
        txHash: result.txHash,
      });
    }
  }
  return hashes;
}

/**
 * Grants `REGISTRAR_ROLE` on the registry to `account` unless it already has it. The signer
 * must hold the registry's `DEFAULT_ADMIN_ROLE`. Waits for the receipt.
 *
 * @param signer admin of the registry, connected to a provider
 * @param registryAddress AssetTypeRegistry address
 * @param account the account to make a registrar
 * @returns `granted: false` and no hash when the account already had the role
 * @example
 * await grantRegistrar(operator, deployment.addresses.assetTypeRegistry, orgWallet.address);
 */
export async function grantRegistrar(
  signer: Signer,
  registryAddress: string,
  account: string,
): Promise<{ granted: boolean; txHash?: string }> {
  const provider = signer.provider;
  if (provider === null) throw new DeployError("The signer has no provider");
  const registry = AssetTypeRegistry__factory.connect(registryAddress, signer);
  const role = await registry.REGISTRAR_ROLE();
  if (await registry.hasRole(role, account)) return { granted: false };
  const from = getAddress(await signer.getAddress());
  const receipt = await send("grantRole(REGISTRAR_ROLE)", from, provider, "the RPC endpoint", () =>
    registry.grantRole(role, account),
  );
  return { granted: true, txHash: receipt.hash };
}

/** Whether `account` holds `REGISTRAR_ROLE` on the registry. */
export async function isRegistrar(
  provider: Provider,
  registryAddress: string,
  account: string,
): Promise<boolean> {
  const registry = AssetTypeRegistry__factory.connect(registryAddress, provider);
  return registry.hasRole(await registry.REGISTRAR_ROLE(), account);
}

/**
 * Fails with `ArtifactError` when the TypeChain factories this process loaded differ from the
 * artifacts on disk: the contracts were rebuilt after `typechain-types/` was imported, and
 * deploying the old bytecode under the new ABI hash would record a lie. Entry points build before
 * they import this module (`deploy/cli.ts`, `relayer/src/infra/contract-types.ts`).
 */
async function assertFactoriesMatchArtifacts(root: string): Promise<void> {
  const artifacts = await loadAllArtifacts(root);
  const stale = CONTRACT_NAMES.filter(
    (name) =>
      artifacts[name].bytecode !== FACTORIES[name].bytecode ||
      abiHash(artifacts[name].abi) !== abiHash(FACTORIES[name].abi),
  );
  if (stale.length > 0) {
    throw new ArtifactError(
      `The loaded typechain-types/ of ${stale.join(", ")} differ from artifacts/ (rebuilt after this process started)`,
      { details: "Run the command again: it loads the freshly generated typechain-types/." },
    );
  }
}

/** Runs a read against the node, turning connection failures into `RpcUnreachableError`. */
async function rpc<T>(rpcLabel: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isUnavailable(error)) throw new RpcUnreachableError(rpcLabel, error);
    throw error;
  }
}

/** Sends a transaction, waits for its receipt and turns failures into `DeployError`s. */
async function send(
  step: string,
  from: string,
  provider: Provider,
  rpcLabel: string,
  submit: () => Promise<{
    hash: string;
    wait: (confirms?: number) => Promise<TransactionReceipt | null>;
  }>,
): Promise<TransactionReceipt> {
  try {
    const tx = await submit();
    const receipt = await tx.wait(1);
    if (receipt === null) throw new DeployError(`${step}: transaction ${tx.hash} was dropped`);
    return receipt;
  } catch (error) {
    if (error instanceof DeployError) throw error;
    if (isInsufficientFunds(error)) {
      const balance = await provider.getBalance(from).catch(() => 0n);
      throw new InsufficientFundsError(from, balance, error);
    }
    if (isUnavailable(error)) throw new RpcUnreachableError(rpcLabel, error);
    if (isRevert(error)) {
      const reason = isError(error, "CALL_EXCEPTION")
        ? (error.reason ?? error.revert?.name ?? error.shortMessage)
        : shortMessageOf(error);
      throw new DeployError(`${step} reverted: ${reason}`, { cause: error });
    }
    throw new DeployError(`${step} failed: ${shortMessageOf(error)}`, { cause: error });
  }
}

/** ethers' one-line `shortMessage`, else the message. */
function shortMessageOf(error: unknown): string {
  return (
    (error as { shortMessage?: string }).shortMessage ??
    (error instanceof Error ? error.message : String(error))
  );
}
