import { isMethodNotFound, isUnavailable, RpcResponseError } from "./rpc-errors.js";
import type { RpcClient } from "./rpc-client.js";

/**
 * What a node supports, asked of the node itself (docs/architecture.md "Node dialects"). Every
 * answer is "yes", "no" (the node said so: -32601 "method not found", or the feature failed
 * where a control case worked) or "unknown" (the probe could not tell: a timeout, an error it
 * cannot read); the probe never guesses.
 */
export type Support = "yes" | "no" | "unknown";

/** The EVM levels the probe can tell apart, oldest first (solc's names). */
export type EvmLevel = "berlin" | "london" | "shanghai" | "cancun";

/** The consensus a chain appears to run, and where that was read. */
export type Consensus = "dev" | "ibft/qbft" | "clique" | "pos" | "pow" | "unknown";

/** What decides the fee model: the latest block and the fee methods the node has. */
export interface FeeSignals {
  /** The latest block's base fee; null when blocks carry none (before London). */
  baseFeePerGas: bigint | null;
  /** `eth_gasPrice`; undefined when it did not answer. */
  gasPrice: bigint | undefined;
  feeHistory: Support;
  maxPriorityFeePerGas: Support;
}

/** The result of `probeNode`. */
export interface NodeDialect {
  chainId: number;
  /** `web3_clientVersion`; undefined when the node does not say. */
  client: string | undefined;
  /** Head block at the time of the probe. */
  head: number;
  evm: {
    /** The newest level whose features the node showed; "unknown" when PUSH0 could not be tested. */
    level: EvmLevel | "unknown";
    push0: Support;
    mcopy: Support;
    transientStorage: Support;
    /** Blocks carry a base fee (London or later). */
    baseFee: boolean;
  };
  fees: FeeSignals;
  batches: {
    support: Support;
    /** The largest batch accepted when a larger one (up to `tried`) was refused: a size cap. */
    cap: number | undefined;
    /** The largest batch size tried. */
    tried: number;
  };
  /** `eth_getBlockReceipts`. */
  blockReceipts: Support;
  finality: {
    /** `eth_getBlockByNumber("finalized")` answered with a block. */
    finalizedTag: Support;
    consensus: Consensus;
    /** How `consensus` was read (a method that answered, the block header, the client name). */
    consensusFrom: string;
    /** Whether a block is final once included (IBFT/QBFT, a dev node); undefined when unknown. */
    instantFinality: boolean | undefined;
  };
  /** Node answers behind the "unknown"s and "no"s, for a human. */
  notes: string[];
}

/**
 * Init code run by `eth_call` (no `to`: a contract creation, nothing stored) that returns the
 * 32-byte word 42. The control uses only Berlin opcodes; each probe uses one newer opcode. A
 * probe that fails where the control works shows the opcode is missing.
 */
const INIT_CODE = {
  // PUSH1 42, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN
  control: "0x602a60005260206000f3",
  // PUSH1 42, PUSH0, MSTORE, PUSH1 32, PUSH0, RETURN (Shanghai)
  push0: "0x602a5f5260205ff3",
  // MSTORE 42 at 0, MCOPY 32 bytes from 0 to 32, RETURN the copy (Cancun)
  mcopy: "0x602a6000526020600060205e60206020f3",
  // TSTORE 42 at key 1, TLOAD key 1, MSTORE at 0, RETURN (Cancun)
  transientStorage: "0x602a60015d60015c60005260206000f3",
} as const;

const FORTY_TWO = "0x" + "2a".padStart(64, "0");

/**
 * IBFT 2.0 and QBFT (Besu, GoQuorum) put this constant in every header's mixHash ("Istanbul
 * digest").
 */
const ISTANBUL_DIGEST = "0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365";

interface RawBlock {
  number: string;
  baseFeePerGas?: string;
  difficulty?: string;
  extraData?: string;
  mixHash?: string;
}

/** A batch answer: the result, or the error the client returned in its place. */
type Answer = unknown;

function supportOf(answer: Answer): Support {
  if (!(answer instanceof Error)) return "yes";
  return isMethodNotFound(answer) ? "no" : "unknown";
}

function messageOf(answer: Answer): string {
  return answer instanceof Error ? answer.message : String(answer);
}

/**
 * The fee signals of a node in one batch: the latest block, `eth_gasPrice`, and whether
 * `eth_feeHistory` and `eth_maxPriorityFeePerGas` exist.
 *
 * @throws RpcUnavailableError when the node cannot be reached; the node's error when it does
 *   not answer the latest block
 */
export async function readFeeSignals(rpc: RpcClient): Promise<FeeSignals> {
  const [block, gasPrice, history, tip] = await rpc.batch([
    { method: "eth_getBlockByNumber", params: ["latest", false] },
    { method: "eth_gasPrice", params: [] },
    { method: "eth_feeHistory", params: ["0x1", "latest", [50]] },
    { method: "eth_maxPriorityFeePerGas", params: [] },
  ]);
  return feeSignalsOf(block, gasPrice, history, tip);
}

function feeSignalsOf(block: Answer, gasPrice: Answer, history: Answer, tip: Answer): FeeSignals {
  if (block instanceof Error) throw block;
  if (block === null || typeof block !== "object")
    throw new Error("eth_getBlockByNumber(latest) answered no block");
  const base = (block as RawBlock).baseFeePerGas;
  return {
    baseFeePerGas: typeof base === "string" ? BigInt(base) : null,
    gasPrice: gasPrice instanceof Error ? undefined : BigInt(gasPrice as string),
    feeHistory: supportOf(history),
    maxPriorityFeePerGas: supportOf(tip),
  };
}

/**
 * The newest EVM level whose features the node showed: Cancun with MCOPY and transient
 * storage, Shanghai with PUSH0, else London with a base fee in its blocks, else Berlin. Unknown
 * when PUSH0 could not be tested (the level below Shanghai would be a guess).
 */
export function evmLevelOf(evm: Omit<NodeDialect["evm"], "level">): EvmLevel | "unknown" {
  if (evm.push0 === "yes")
    return evm.mcopy === "yes" && evm.transientStorage === "yes" ? "cancun" : "shanghai";
  if (evm.push0 === "no") return evm.baseFee ? "london" : "berlin";
  return "unknown";
}

/**
 * The consensus the chain appears to run: a dev node by its client name; IBFT/QBFT by the
 * Istanbul digest in the header's mixHash or a `qbft_`/`ibft_`/`istanbul_` method that answers;
 * Clique by `clique_getSigners` or its extraData layout (32-byte vanity, signers, 65-byte
 * seal); proof of stake by a zero difficulty with a `finalized` block; proof of work by a
 * difficulty above Clique's 1 and 2.
 */
export function consensusOf(input: {
  client: string | undefined;
  block: RawBlock;
  methods: { clique: Support; istanbul: Support };
  finalizedTag: Support;
}): { consensus: Consensus; from: string } {
  const client = input.client?.toLowerCase() ?? "";
  if (/^(anvil|hardhatnetwork|ganache|ethereumjs testrpc)/.test(client))
    return { consensus: "dev", from: `client ${input.client}` };
  if (input.block.mixHash?.toLowerCase() === ISTANBUL_DIGEST)
    return { consensus: "ibft/qbft", from: "the Istanbul digest in the block's mixHash" };
  if (input.methods.istanbul === "yes")
    return { consensus: "ibft/qbft", from: "qbft_/ibft_/istanbul_ methods" };
  if (input.methods.clique === "yes") return { consensus: "clique", from: "clique_getSigners" };
  const difficulty = BigInt(input.block.difficulty ?? "0x0");
  const extraBytes = ((input.block.extraData ?? "0x").length - 2) / 2;
  if ((difficulty === 1n || difficulty === 2n) && extraBytes >= 97 && (extraBytes - 97) % 20 === 0)
    return { consensus: "clique", from: "the Clique layout of the block's extraData" };
  if (difficulty === 0n && input.finalizedTag === "yes")
    return { consensus: "pos", from: "zero difficulty and a finalized block" };
  if (difficulty > 2n) return { consensus: "pow", from: `difficulty ${difficulty}` };
  return { consensus: "unknown", from: "no consensus-specific answer" };
}

/**
 * The confirmations advice for a consensus (docs/deploying.md "Running on your own chain").
 *
 * @example
 * confirmationsAdvice("clique") // "set CONFIRMATIONS to several blocks: Clique ..."
 */
export function confirmationsAdvice(consensus: Consensus): string {
  switch (consensus) {
    case "dev":
      return "CONFIRMATIONS=0: a local development node does not reorganise by itself";
    case "ibft/qbft":
      return "CONFIRMATIONS=0: IBFT/QBFT blocks are final once included";
    case "clique":
      return "set CONFIRMATIONS to several blocks: Clique can replace recent blocks (out-of-turn signers)";
    case "pow":
      return "set CONFIRMATIONS to several blocks: proof of work can replace recent blocks";
    case "pos":
      return "set CONFIRMATIONS to several blocks (a block is finalized about two epochs, 64 blocks, later)";
    case "unknown":
      return "set CONFIRMATIONS to several blocks unless the chain has immediate finality (IBFT/QBFT: 0); the probe could not tell";
  }
}

/**
 * Asks a node what it supports, changing nothing on it: chain id, client, EVM level (PUSH0,
 * MCOPY and transient storage run as init code through `eth_call`), fee signals, JSON-RPC
 * batches (and a size cap up to `rpc.maxBatch`), `eth_getBlockReceipts`, the `finalized` tag
 * and the consensus. About 20 small requests.
 *
 * @param rpc the client to probe through (its URL list: the preferred reachable endpoint)
 * @throws RpcUnavailableError when the node cannot be reached at all
 * @example
 * const dialect = await probeNode(new RpcClient(rpcUrl));
 * if (dialect.evm.push0 === "no") console.log("compile with EVM_VERSION=berlin or london");
 */
export async function probeNode(rpc: RpcClient): Promise<NodeDialect> {
  const chainId = Number(BigInt(await rpc.call<string>("eth_chainId")));
  const notes: string[] = [];
  const [batches, answers] = await Promise.all([
    probeBatches(rpc, notes),
    rpc.batch([
      { method: "web3_clientVersion", params: [] },
      { method: "eth_getBlockByNumber", params: ["latest", false] },
      { method: "eth_gasPrice", params: [] },
      { method: "eth_feeHistory", params: ["0x1", "latest", [50]] },
      { method: "eth_maxPriorityFeePerGas", params: [] },
      { method: "eth_getBlockByNumber", params: ["finalized", false] },
      { method: "clique_getSigners", params: [] },
      { method: "qbft_getValidatorsByBlockNumber", params: ["latest"] },
      { method: "istanbul_getValidators", params: [] },
      ...Object.values(INIT_CODE).map((data) => ({
        method: "eth_call",
        params: [{ data }, "latest"],
      })),
    ]),
  ]);
  const [client, block, gasPrice, history, tip, finalized, clique, qbft, istanbul] = answers;
  const [control, push0, mcopy, transient] = answers.slice(9);

  const fees = feeSignalsOf(block, gasPrice, history, tip);
  const head = Number(BigInt((block as RawBlock).number));
  const blockReceipts = await probeBlockReceipts(rpc, head, notes);

  for (const [name, answer] of [
    ["eth_feeHistory", history],
    ["eth_maxPriorityFeePerGas", tip],
  ] as const)
    if (answer instanceof Error && !isMethodNotFound(answer))
      notes.push(`${name} answered an error: ${messageOf(answer)}`);

  const controlRan = control === FORTY_TWO;
  if (!controlRan)
    notes.push(
      `init code without new opcodes did not run through eth_call (${messageOf(control)}): the EVM level cannot be tested`,
    );
  const opcode = (name: string, answer: Answer): Support => {
    if (!controlRan) return "unknown";
    if (answer === FORTY_TWO) return "yes";
    if (answer instanceof RpcResponseError) {
      notes.push(`${name} failed where the control ran: ${answer.message}`);
      return "no";
    }
    notes.push(`${name}: unexpected answer ${messageOf(answer)}`);
    return "unknown";
  };
  const evmFeatures = {
    push0: opcode("PUSH0", push0),
    mcopy: opcode("MCOPY", mcopy),
    transientStorage: opcode("TLOAD/TSTORE", transient),
    baseFee: fees.baseFeePerGas !== null,
  };

  // An error answer to the tag means the node does not track finality under that name.
  const finalizedTag: Support = finalized instanceof Error || finalized === null ? "no" : "yes";
  if (finalized instanceof Error)
    notes.push(`eth_getBlockByNumber("finalized"): ${messageOf(finalized)}`);
  const istanbulSupport: Support = [qbft, istanbul].some((a) => !(a instanceof Error))
    ? "yes"
    : "no";
  const clientText = client instanceof Error ? undefined : String(client);
  const { consensus, from } = consensusOf({
    client: clientText,
    block: block as RawBlock,
    methods: { clique: supportOf(clique), istanbul: istanbulSupport },
    finalizedTag,
  });
  return {
    chainId,
    client: clientText,
    head,
    evm: { level: evmLevelOf(evmFeatures), ...evmFeatures },
    fees,
    batches,
    blockReceipts,
    finality: {
      finalizedTag,
      consensus,
      consensusFrom: from,
      instantFinality:
        consensus === "dev" || consensus === "ibft/qbft"
          ? true
          : consensus === "unknown"
            ? undefined
            : false,
    },
    notes,
  };
}

async function probeBlockReceipts(rpc: RpcClient, head: number, notes: string[]) {
  try {
    const receipts = await rpc.call<unknown>("eth_getBlockReceipts", ["0x" + head.toString(16)]);
    if (Array.isArray(receipts)) return "yes" as const;
    notes.push(`eth_getBlockReceipts answered ${JSON.stringify(receipts)}, not a list`);
    return "unknown" as const;
  } catch (error) {
    if (isMethodNotFound(error)) return "no" as const;
    // The node answered "not now" (still indexing): it has the method, but nothing is proven.
    if (isUnavailable(error) && !(error instanceof RpcResponseError)) throw error;
    notes.push(`eth_getBlockReceipts: ${messageOf(error)}`);
    return "unknown" as const;
  }
}

/**
 * Batch support: a batch of 2 answered in full means yes, refused means no. Then, when the
 * client's `maxBatch` is larger, a batch of that size, and on its refusal a bisection (about 7
 * small batches for 100) to find the node's cap.
 */
async function probeBatches(rpc: RpcClient, notes: string[]): Promise<NodeDialect["batches"]> {
  const pair = await rpc.probeBatch(2);
  if (pair.kind === "refused") {
    notes.push(`a batch of 2 was refused: ${pair.reason}`);
    return { support: "no", cap: undefined, tried: 2 };
  }
  const largest = rpc.maxBatch;
  if (largest <= 2 || (await rpc.probeBatch(largest)).kind === "answers")
    return { support: "yes", cap: undefined, tried: Math.max(2, largest) };
  let accepted = 2;
  let refused = largest;
  while (refused - accepted > 1) {
    const size = Math.floor((accepted + refused) / 2);
    if ((await rpc.probeBatch(size)).kind === "answers") accepted = size;
    else refused = size;
  }
  return { support: "yes", cap: accepted, tried: largest };
}
