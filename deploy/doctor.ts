/**
 * `npm run doctor -- --rpc <url>`: asks a node what it supports and prints what the service will
 * use on it (docs/deploying.md "Running on your own chain"). Changes nothing on the node. Exits 1 when the
 * service cannot serve the chain (unreachable, wrong chain id, an EVM older than the contracts'
 * target), naming the setting to change; 2 on bad arguments.
 */
import { formatUnits } from "ethers";
import { chooseFeeModel, describeFeeModel } from "../relayer/src/engine/fee-policy.js";
import {
  confirmationsAdvice,
  probeNode,
  type NodeDialect,
} from "../relayer/src/chain/rpc/node-dialect.js";
import { RpcClient } from "../relayer/src/chain/rpc/rpc-client.js";
import { artifactsEvmVersion } from "./artifacts.js";
import { ConfigError, DeployError } from "./errors.js";
import { runCli } from "./run-cli.js";
import { evmVersionFromEnv, type EvmVersion } from "./evm-version.js";
import { checkNode } from "./node-check.js";

const USAGE = `Usage: npm run doctor -- [--rpc <url>] [--chain-id <id>] [--max-batch <n>] [--json]

  --rpc <url>       the node (default RPC_URL, else http://127.0.0.1:8545)
  --chain-id <id>   the chain id the node must report (default EXPECTED_CHAIN_ID, if set)
  --max-batch <n>   the largest JSON-RPC batch to try (default RPC_MAX_BATCH, else 100)
  --json            print the probe and the checks as JSON

The EVM the contracts need is EVM_VERSION's (default berlin): what npm run deploy builds.`;

/** The doctor's arguments. */
export interface DoctorOptions {
  rpc: string;
  chainId: number | undefined;
  maxBatch: number;
  json: boolean;
}

/** Parses argv and the environment; throws `ConfigError` naming the bad argument. */
export function parseDoctorArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): DoctorOptions | "help" {
  const positive = (name: string, value: string | undefined): number => {
    const n = Number(value);
    if (value === undefined || !Number.isInteger(n) || n <= 0)
      throw new ConfigError(`${name} must be a positive integer (got "${value ?? ""}")`, {
        details: USAGE,
      });
    return n;
  };
  const options: DoctorOptions = {
    rpc: env.RPC_URL?.trim() || "http://127.0.0.1:8545",
    chainId: env.EXPECTED_CHAIN_ID?.trim()
      ? positive("EXPECTED_CHAIN_ID", env.EXPECTED_CHAIN_ID.trim())
      : undefined,
    maxBatch: env.RPC_MAX_BATCH?.trim() ? positive("RPC_MAX_BATCH", env.RPC_MAX_BATCH.trim()) : 100,
    json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") return "help";
    else if (arg === "--json") options.json = true;
    else if (arg === "--rpc") {
      const value = argv[++i];
      if (value === undefined || value.trim() === "")
        throw new ConfigError("--rpc needs a URL", { details: USAGE });
      options.rpc = value.trim();
    } else if (arg === "--chain-id") options.chainId = positive("--chain-id", argv[++i]);
    else if (arg === "--max-batch") options.maxBatch = positive("--max-batch", argv[++i]);
    else throw new ConfigError(`Unknown argument ${arg}`, { details: USAGE });
  }
  return options;
}

/** One row of the doctor's table: the topic, what the node said, what the service will use. */
export type DoctorRow = [topic: string, node: string, service: string];

/** The doctor's findings for a probed node. */
export interface DoctorReport {
  rows: DoctorRow[];
  problems: string[];
  warnings: string[];
  notes: string[];
}

const wei = (value: bigint | null | undefined): string =>
  value === null || value === undefined
    ? "none"
    : value === 0n
      ? "0"
      : `${formatUnits(value, "gwei").replace(/\.0$/, "")} gwei`;

/**
 * What the doctor prints for a probed node, and the problems that make it fail.
 *
 * @param dialect what `probeNode` found
 * @param context `node`: the node's label; `evmVersion`: what the contracts are compiled for;
 *   `expectedChainId`; `maxBatch`: the client's batch setting
 */
export function doctorReport(
  dialect: NodeDialect,
  context: {
    node: string;
    evmVersion: EvmVersion;
    expectedChainId: number | undefined;
    maxBatch: number;
  },
): DoctorReport {
  const { problems, warnings } = checkNode(dialect, {
    node: context.node,
    evmVersion: context.evmVersion,
    expectedChainId: context.expectedChainId,
    chainIdSetting: "--chain-id / EXPECTED_CHAIN_ID",
  });
  const { evm, fees, batches, finality } = dialect;
  const evmOk = !problems.some((p) => p.includes("compiled for"));

  let feeUse: string;
  try {
    const model = chooseFeeModel(fees);
    feeUse = describeFeeModel(model);
    if (fees.baseFeePerGas === 0n && model.source !== "free")
      warnings.push(
        `blocks carry a zero base fee but eth_gasPrice asks ${wei(fees.gasPrice)}: the service pays a tip of at least that; ` +
          "a free-gas node answers eth_gasPrice 0 (anvil answers 1 gwei even with --gas-price 0)",
      );
  } catch (error) {
    feeUse = `cannot price transactions: ${(error as Error).message}`;
    problems.push(`the node at ${context.node}: ${feeUse}`);
  }

  const batchNode =
    batches.support === "yes"
      ? batches.cap === undefined
        ? `yes (no cap up to ${batches.tried})`
        : `yes, at most ${batches.cap} per batch`
      : batches.support;
  const batchUse =
    batches.support === "no"
      ? "single calls, 8 at a time (broadcasts one by one)"
      : `batches of up to ${Math.min(context.maxBatch, batches.cap ?? Infinity)} (RPC_MAX_BATCH ${context.maxBatch})`;

  const receiptsUse =
    dialect.blockReceipts === "yes"
      ? "eth_getBlockReceipts for each new block"
      : "per-transaction receipts (eth_getTransactionReceipt, from the nonce checks)";

  const chainUse =
    context.expectedChainId === undefined
      ? "no chain id given to check (--chain-id)"
      : dialect.chainId === context.expectedChainId
        ? `matches ${context.expectedChainId}`
        : `WRONG: expected ${context.expectedChainId}`;

  return {
    rows: [
      ["chain id", String(dialect.chainId), chainUse],
      ["client", dialect.client ?? "(web3_clientVersion not answered)", ""],
      [
        "EVM level",
        `${evm.level} (PUSH0 ${evm.push0}, MCOPY ${evm.mcopy}, TLOAD/TSTORE ${evm.transientStorage}, base fee ${evm.baseFee ? "yes" : "no"})`,
        `contracts compiled for ${context.evmVersion}: ${evmOk ? "ok" : "NOT SUPPORTED"}`,
      ],
      [
        "fees",
        `base fee ${wei(fees.baseFeePerGas)}, gas price ${wei(fees.gasPrice)}; feeHistory ${fees.feeHistory}, maxPriorityFee ${fees.maxPriorityFeePerGas}`,
        feeUse,
      ],
      ["batches", batchNode, batchUse],
      ["block receipts", `eth_getBlockReceipts ${dialect.blockReceipts}`, receiptsUse],
      [
        "finality",
        `"finalized" tag ${finality.finalizedTag}; consensus ${finality.consensus} (${finality.consensusFrom})`,
        confirmationsAdvice(finality.consensus),
      ],
    ],
    problems,
    warnings,
    notes: dialect.notes,
  };
}

/** The report as text: a three-column table, then problems, warnings and the probe's notes. */
export function formatReport(node: string, report: DoctorReport): string {
  const header: DoctorRow = ["", "the node", "the service will use"];
  const rows = [header, ...report.rows];
  const width = (i: 0 | 1) => Math.max(...rows.map((r) => r[i].length));
  const [w0, w1] = [width(0), Math.min(width(1), 72)];
  const lines = [`Node ${node}`, ""];
  for (const [topic, said, use] of rows)
    lines.push(`${topic.padEnd(w0)}  ${said.padEnd(w1)}  ${use}`.trimEnd());
  const section = (title: string, items: readonly string[]) => {
    if (items.length === 0) return;
    lines.push("", title);
    for (const item of items) lines.push(`  - ${item}`);
  };
  section("Problems (the service cannot serve this chain as configured):", report.problems);
  section("Warnings:", report.warnings);
  section("Probe notes:", report.notes);
  lines.push("", report.problems.length === 0 ? "OK: the service can serve this node." : "NOT OK.");
  return lines.join("\n");
}

async function main(): Promise<void> {
  const options = parseDoctorArgs(process.argv.slice(2), process.env);
  if (options === "help") {
    console.log(USAGE);
    return;
  }
  const evmVersion = evmVersionFromEnv();
  const rpc = new RpcClient(options.rpc, { timeoutMs: 5_000, maxBatch: options.maxBatch });
  const node = rpc.endpoints.map((e) => e.label).join(", ");
  let dialect: NodeDialect;
  try {
    dialect = await probeNode(rpc);
  } catch (cause) {
    throw new DeployError(`cannot reach the node at ${node}`, {
      details: "Check --rpc (or RPC_URL): is the node running, and is this its JSON-RPC port?",
      cause,
    });
  }
  const report = doctorReport(dialect, {
    node,
    evmVersion,
    expectedChainId: options.chainId,
    maxBatch: options.maxBatch,
  });
  const built = await artifactsEvmVersion();
  if (built !== undefined && built !== evmVersion)
    report.warnings.push(
      `the compiled artifacts target ${built}, EVM_VERSION asks for ${evmVersion}: npm run deploy rebuilds them first`,
    );
  if (options.json) {
    const json = JSON.stringify(
      { node, evmVersion, dialect, ...report },
      (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value),
      2,
    );
    console.log(json);
  } else {
    console.log(formatReport(node, report));
  }
  if (report.problems.length > 0) process.exitCode = 1;
}

runCli(import.meta.url, main);
