import type { EvmLevel, NodeDialect, Support } from "../relayer/src/chain/rpc/node-dialect.js";
import { featuresNeeded, type EvmVersion } from "./evm-version.js";

/** What `checkNode` found: problems refuse a deploy (and fail the doctor); warnings do not. */
export interface NodeCheck {
  problems: string[];
  warnings: string[];
}

/** The `EVM_VERSION` to build with for a node at `level` (unknown: the safe default, berlin). */
export function evmVersionFor(level: EvmLevel | "unknown"): EvmVersion {
  return level === "unknown" ? "berlin" : level;
}

/**
 * Whether the service can serve a node: the chain id it expects, and every opcode the
 * contracts' EVM target may use (PUSH0 from Shanghai, MCOPY and transient storage from Cancun,
 * a base fee from London). Each problem names the node, what it lacks, what the contracts were
 * compiled for and the setting to change. Fees, batches, block receipts and finality never
 * refuse: the relayer speaks each dialect (docs/architecture.md "Node dialects").
 *
 * @param dialect what `probeNode` found
 * @param options `node`: how to name the node (its URL without secrets); `evmVersion`: what the
 *   contracts are (or will be) compiled for; `expectedChainId`: when given, the only chain id
 *   accepted, and `chainIdSetting` names where it comes from
 * @example
 * checkNode(dialect, { node: "http://10.0.0.5:8545", evmVersion: "shanghai" }).problems
 * // ["the node at http://10.0.0.5:8545 does not support PUSH0 (pre-Shanghai); the contracts were compiled for shanghai; rebuild with EVM_VERSION=london"]
 */
export function checkNode(
  dialect: NodeDialect,
  options: {
    node: string;
    evmVersion: EvmVersion;
    expectedChainId?: number | undefined;
    chainIdSetting?: string;
  },
): NodeCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const { node, evmVersion } = options;
  if (options.expectedChainId !== undefined && dialect.chainId !== options.expectedChainId) {
    problems.push(
      `the node at ${node} reports chain id ${dialect.chainId}, not ${options.expectedChainId}; ` +
        `point RPC_URL at a chain ${options.expectedChainId} node (or change ${options.chainIdSetting ?? "EXPECTED_CHAIN_ID"})`,
    );
  }
  const needs = featuresNeeded(evmVersion);
  const { evm } = dialect;
  const wanted: Array<[name: string, support: Support]> = [];
  if (needs.push0) wanted.push(["PUSH0", evm.push0]);
  if (needs.cancunOpcodes)
    wanted.push(["MCOPY", evm.mcopy], ["transient storage (TLOAD/TSTORE)", evm.transientStorage]);
  const missing = wanted.filter(([, support]) => support === "no").map(([name]) => name);
  const unknown = wanted.filter(([, support]) => support === "unknown").map(([name]) => name);
  const compiled = `the contracts were compiled for ${evmVersion}`;
  const rebuild = `rebuild with EVM_VERSION=${evmVersionFor(evm.level)}`;
  // One line per cause: the opcodes missing (and the era that tells), else a missing base fee.
  if (missing.length > 0) {
    const era = missing.includes("PUSH0") ? "pre-Shanghai" : "pre-Cancun";
    problems.push(
      `the node at ${node} does not support ${missing.join(", ")} (${era}); ${compiled}; ${rebuild}`,
    );
  } else if (needs.london && !evm.baseFee) {
    problems.push(
      `the node at ${node} is pre-London (its blocks carry no base fee); ${compiled}; ${rebuild}`,
    );
  }
  if (unknown.length > 0)
    warnings.push(
      `could not tell whether the node at ${node} supports ${unknown.join(", ")}; ${compiled}; ` +
        "if the deploy fails, rebuild with EVM_VERSION=berlin",
    );
  return { problems, warnings };
}
