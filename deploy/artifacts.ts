import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { keccak256, toUtf8Bytes, type InterfaceAbi } from "ethers";
import { z } from "zod";
import { ArtifactError } from "./errors.js";
import { evmAtLeast, evmVersionFromEnv, isEvmVersion, type EvmVersion } from "./evm-version.js";

/** The repository root (the folder holding package.json and hardhat.config.ts). */
export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The contracts this project deploys, in deployment order. */
export const CONTRACT_NAMES = ["AssetTypeRegistry", "AssetToken", "Marketplace"] as const;
export type ContractName = (typeof CONTRACT_NAMES)[number];

/** The parts of a Hardhat 3 artifact (`hh3-artifact-1`) the deploy code uses. */
export interface Artifact {
  contractName: string;
  sourceName: string;
  abi: InterfaceAbi;
  bytecode: string;
  deployedBytecode: string;
  /** The build that produced it (`artifacts/build-info/<id>.json`). */
  buildInfoId?: string | undefined;
}

const artifactSchema = z.object({
  contractName: z.string(),
  sourceName: z.string(),
  abi: z.array(z.record(z.string(), z.unknown())),
  bytecode: z.string().regex(/^0x[0-9a-fA-F]*$/),
  deployedBytecode: z.string().regex(/^0x[0-9a-fA-F]*$/),
  buildInfoId: z.string().optional(),
});

/** How to get fresh artifacts: build when missing or older than a source file, always, or never. */
export type BuildMode = "auto" | "always" | "never";

/** Path of the artifact Hardhat 3 writes for `contracts/<name>.sol:<name>`. */
export function artifactPath(name: string, root = PROJECT_ROOT): string {
  return path.join(root, "artifacts", "contracts", `${name}.sol`, `${name}.json`);
}

/**
 * keccak256 of the ABI's JSON text, used to tell whether deployed contracts match the current
 * build. The ABI is serialised exactly as the compiler ordered it.
 */
export function abiHash(abi: InterfaceAbi): string {
  const json = typeof abi === "string" ? abi : JSON.stringify(abi);
  return keccak256(toUtf8Bytes(json));
}

/** Reads and validates one compiled artifact. Throws `ArtifactError` when missing or malformed. */
export async function loadArtifact(name: string, root = PROJECT_ROOT): Promise<Artifact> {
  const file = artifactPath(name, root);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new ArtifactError(`Artifact for ${name} not found at ${path.relative(root, file)}`, {
      details: "Run `npx hardhat build` first (contracts/" + name + ".sol must exist and compile).",
      cause,
    });
  }
  const parsed = artifactSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new ArtifactError(`Artifact ${file} is not a Hardhat artifact`, { cause: parsed.error });
  }
  if (parsed.data.bytecode === "0x") {
    throw new ArtifactError(`${name} has no bytecode (abstract contract or interface?)`);
  }
  return parsed.data;
}

/** Loads the three artifacts deployAll needs. */
export async function loadAllArtifacts(
  root = PROJECT_ROOT,
): Promise<Record<ContractName, Artifact>> {
  const [registry, token, marketplace] = await Promise.all(
    CONTRACT_NAMES.map((name) => loadArtifact(name, root)),
  );
  return { AssetTypeRegistry: registry!, AssetToken: token!, Marketplace: marketplace! };
}

/**
 * The EVM version the deployed contracts' artifacts were compiled for, read from the solc input
 * of their build (`artifacts/build-info/<buildInfoId>.json`, `settings.evmVersion`). When the
 * three come from different builds, the latest target among them (what the node must support).
 * Undefined when an artifact or its build info is missing or names no version this project
 * knows.
 */
export async function artifactsEvmVersion(root = PROJECT_ROOT): Promise<EvmVersion | undefined> {
  let newest: EvmVersion | undefined;
  for (const name of CONTRACT_NAMES) {
    try {
      const { buildInfoId } = artifactSchema.parse(
        JSON.parse(await readFile(artifactPath(name, root), "utf8")),
      );
      if (buildInfoId === undefined) return undefined;
      const info = JSON.parse(
        await readFile(path.join(root, "artifacts", "build-info", `${buildInfoId}.json`), "utf8"),
      ) as { input?: { settings?: { evmVersion?: unknown } } };
      const version = info.input?.settings?.evmVersion;
      if (typeof version !== "string" || !isEvmVersion(version)) return undefined;
      if (newest === undefined || evmAtLeast(version, newest)) newest = version;
    } catch {
      return undefined;
    }
  }
  return newest;
}

async function newestMtime(dir: string, extension: string): Promise<number> {
  let newest = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.isFile() && entry.name.endsWith(extension)) {
      const info = await stat(path.join(entry.parentPath, entry.name));
      newest = Math.max(newest, info.mtimeMs);
    }
  }
  return newest;
}

/** The entry point of the TypeChain bindings `hardhat build` generates next to the artifacts. */
export function contractTypesEntry(root = PROJECT_ROOT): string {
  return path.join(root, "typechain-types", "index.ts");
}

/**
 * Whether the artifacts of the deployed contracts or the TypeChain bindings generated from them
 * (`typechain-types/`, which deploy.ts deploys through) are missing, the artifacts are older
 * than any Solidity source under contracts/ (or hardhat.config.ts), or they were compiled for
 * another EVM version than `EVM_VERSION` (default berlin) asks for.
 */
export async function artifactsAreStale(
  root = PROJECT_ROOT,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (!existsSync(contractTypesEntry(root))) return true;
  if ((await artifactsEvmVersion(root)) !== evmVersionFromEnv(env)) return true;
  let oldestArtifact = Infinity;
  for (const name of CONTRACT_NAMES) {
    try {
      oldestArtifact = Math.min(oldestArtifact, (await stat(artifactPath(name, root))).mtimeMs);
    } catch {
      return true;
    }
  }
  // Hardhat does not rewrite unchanged artifacts, so a successful build also touches a stamp.
  const stamp = await stat(buildStampPath(root)).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const built = Math.max(oldestArtifact, stamp);
  const sources = await newestMtime(path.join(root, "contracts"), ".sol");
  const config = await stat(path.join(root, "hardhat.config.ts")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  return Math.max(sources, config) > built;
}

function buildStampPath(root: string): string {
  return path.join(root, "cache", "deploy-build.stamp");
}

/** The Node binary to run Hardhat 3 with (it refuses Node < 22; the project ships Node 22). */
function nodeForHardhat(root: string): string {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= 22) return process.execPath;
  const local = path.join(root, "node_modules", ".bin", "node");
  return existsSync(local) ? local : process.execPath;
}

/** Runs `hardhat build` in `root`. Throws `ArtifactError` with the compiler output on failure. */
export async function runHardhatBuild(root = PROJECT_ROOT): Promise<void> {
  const startedAt = new Date();
  const cli = path.join(root, "node_modules", "hardhat", "dist", "src", "cli.js");
  const child = spawn(nodeForHardhat(root), [cli, "build"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0) {
    throw new ArtifactError(`hardhat build failed (exit code ${code})`, {
      details: output.trim().split("\n").slice(-30).join("\n"),
    });
  }
  // Stamp with the start time: a source saved during the build still counts as newer.
  await mkdir(path.dirname(buildStampPath(root)), { recursive: true });
  await writeFile(buildStampPath(root), "");
  await utimes(buildStampPath(root), startedAt, startedAt);
}

/**
 * Makes sure fresh artifacts exist: with "auto" builds when they are missing or stale, with
 * "always" builds every time, with "never" only checks they exist.
 */
export async function ensureArtifacts(
  options: { mode?: BuildMode; root?: string; log?: (line: string) => void } = {},
): Promise<void> {
  const { mode = "auto", root = PROJECT_ROOT, log = () => {} } = options;
  if (mode === "never") return;
  if (mode === "auto" && !(await artifactsAreStale(root))) return;
  log("compiling contracts (hardhat build: first start or changed sources, about 15 s)...");
  await runHardhatBuild(root);
}
