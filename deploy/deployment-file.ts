import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { getAddress, isAddress } from "ethers";
import { z } from "zod";
import { CONTRACT_NAMES } from "./artifacts.js";
import { EVM_VERSIONS } from "./evm-version.js";
import { DeploymentFileError } from "./errors.js";

const address = z
  .string()
  .refine((value) => isAddress(value), "not an address")
  .transform((value) => getAddress(value));
const hash32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "not a 32-byte hex hash");

const contractRecord = z.object({
  address,
  txHash: hash32,
  blockNumber: z.number().int().nonnegative(),
  abiHash: hash32,
  codeHash: hash32,
});

/** Schema of `deployments/<chainId>.json`. */
export const deploymentSchema = z.object({
  chainId: z.number().int().positive(),
  deployer: address,
  blockNumber: z.number().int().nonnegative(),
  timestamp: z.iso.datetime(),
  contracts: z.object({
    AssetTypeRegistry: contractRecord,
    AssetToken: contractRecord,
    Marketplace: contractRecord,
  }),
  setupTxHashes: z.array(z.object({ step: z.string(), txHash: hash32 })),
  /** The EVM version the deployed bytecode was compiled for (absent in records made before it was kept). */
  evmVersion: z.enum(EVM_VERSIONS).optional(),
});

/** A deployment record as stored on disk. */
export type Deployment = z.infer<typeof deploymentSchema>;
/** One contract's entry in a deployment record. */
export type ContractRecord = z.infer<typeof contractRecord>;

/** The deployed addresses, checksummed. */
export interface DeploymentAddresses {
  assetTypeRegistry: string;
  assetToken: string;
  marketplace: string;
}

/** A validated deployment record with its addresses pulled out. */
export interface LoadedDeployment extends Deployment {
  addresses: DeploymentAddresses;
}

/** The default record path for a chain: `<root>/deployments/<chainId>.json`. */
export function defaultDeploymentFile(chainId: number, root: string): string {
  return path.join(root, "deployments", `${chainId}.json`);
}

function withAddresses(deployment: Deployment): LoadedDeployment {
  return {
    ...deployment,
    addresses: {
      assetTypeRegistry: deployment.contracts.AssetTypeRegistry.address,
      assetToken: deployment.contracts.AssetToken.address,
      marketplace: deployment.contracts.Marketplace.address,
    },
  };
}

/** Validates parsed JSON as a deployment record. Throws `DeploymentFileError` naming the field. */
export function parseDeployment(json: unknown, source = "deployment"): LoadedDeployment {
  const parsed = deploymentSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
      .join("; ");
    throw new DeploymentFileError(`${source} is not a valid deployment record: ${issues}`);
  }
  return withAddresses(parsed.data);
}

/**
 * Reads and validates a deployment record.
 *
 * @param file path of a `deployments/<chainId>.json` file
 * @returns the record with checksummed `addresses`
 * @throws DeploymentFileError when the file is missing, not JSON, or of the wrong shape
 * @example
 * const { addresses } = await loadDeployment("deployments/1236.json");
 */
export async function loadDeployment(file: string): Promise<LoadedDeployment> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new DeploymentFileError(`Deployment file ${file} cannot be read`, {
      details: "Run `npm run deploy` (or `npm start` for the local chain) to create it.",
      cause,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new DeploymentFileError(`Deployment file ${file} is not valid JSON`, { cause });
  }
  return parseDeployment(json, file);
}

/** Writes a record atomically (temporary file + rename), creating the folder. */
export async function writeDeployment(file: string, deployment: Deployment): Promise<void> {
  const ordered: Deployment = {
    ...deployment,
    contracts: Object.fromEntries(
      CONTRACT_NAMES.map((name) => [name, deployment.contracts[name]]),
    ) as Deployment["contracts"],
  };
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(ordered, null, 2) + "\n");
  await rename(temporary, file);
}
