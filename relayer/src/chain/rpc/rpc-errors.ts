import { isError } from "ethers";
import { BaseError, RpcUnavailableError } from "../../errors.js";

/**
 * The one place where the relayer reads a chain node's errors. Everything else asks a named
 * predicate (`isNonceTooLow(error)`, `isUnavailable(error)`, ...); nobody else matches error text.
 * Each predicate walks the whole chain of wrapped errors (`cause`, ethers' `error` and
 * `info.error`), so it answers the same for the RPC client's own errors, for ethers errors built
 * on top of them and for anything that wraps either. The node texts come from anvil, geth and
 * Besu; `test/unit/rpc-errors.test.ts` holds anvil's real messages.
 */

/**
 * Node answers that mean "not now" rather than "no": geth after a restart (`transaction indexing
 * is in progress`), a node behind the block asked about, a provider's rate limit.
 */
const TRANSIENT =
  /transaction indexing is in progress|header not found|unknown block|missing trie node|request rate exceeded|limit exceeded|too many requests|try again later|server is busy/i;

/** A JSON-RPC error answer from the node (the node is up; the request was refused). */
export class RpcResponseError extends BaseError {
  override name = "RpcResponseError";
  readonly code: number;
  /** Revert data (`0x...`) when the node returned some. */
  readonly data: string | undefined;
  /** Whether asking again later may succeed (a transient node state, not a refusal). */
  readonly retryable: boolean;
  constructor(method: string, code: number, message: string, data: string | undefined) {
    super(`${method}: ${message}`, { details: { code } });
    this.code = code;
    this.data = data;
    this.retryable = code === -32005 || TRANSIENT.test(message);
  }
}

/**
 * A request of a JSON-RPC batch that got no answer: the node answered the batch but left this
 * request's id out. Not a refusal of the request: a broadcast (`eth_sendRawTransaction`) whose
 * answer was lost may well be in the node's pool, so the engine must treat it as possibly sent
 * (`isAnswerLost`). It stays an `RpcResponseError` (code -32603, "missing answer in batch") so
 * code that only knows that class sees what it always saw.
 */
export class RpcAnswerLostError extends RpcResponseError {
  override name = "RpcAnswerLostError";
  /** Ask again: the request may or may not have been carried out. */
  override readonly retryable = true;
  constructor(method: string) {
    super(method, -32603, "missing answer in batch", undefined);
  }
}

/** What a broadcast or call failure means for the engine. */
export type RpcFailureKind =
  | "unavailable" // node unreachable or timed out: retry later
  | "nonce-too-low" // the nonce is already used on chain
  | "already-known" // this exact transaction is already in the pool
  | "underpriced" // a replacement must pay more
  | "insufficient-funds"
  | "revert" // execution reverted (estimate or call)
  | "other";

/** The node's words for each kind, in the order they are tried (first match wins). */
const NODE_MESSAGES: ReadonlyArray<readonly [RpcFailureKind, RegExp]> = [
  ["nonce-too-low", /nonce too low|nonce has already been used|NonceTooLow|OldNonce/i],
  ["already-known", /already known|known transaction|already imported|AlreadyKnown/i],
  [
    "underpriced",
    /underpriced|replacement transaction|fee too low|max fee per gas less than block base fee/i,
  ],
  ["insufficient-funds", /insufficient funds|InsufficientFunds|Insufficient balance/i],
  ["revert", /revert|execution reverted|invalid opcode|out of gas/i],
];

/** ethers error codes, for errors ethers built from a node answer. */
const ETHERS_KINDS: ReadonlyArray<readonly [Parameters<typeof isError>[1], RpcFailureKind]> = [
  ["NETWORK_ERROR", "unavailable"],
  ["TIMEOUT", "unavailable"],
  ["SERVER_ERROR", "unavailable"],
  ["NONCE_EXPIRED", "nonce-too-low"],
  ["REPLACEMENT_UNDERPRICED", "underpriced"],
  ["INSUFFICIENT_FUNDS", "insufficient-funds"],
  ["CALL_EXCEPTION", "revert"],
];

/** Socket, DNS, fetch and abort failures: the node could not be reached or did not answer. */
const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR|fetch failed|socket hang up|TimeoutError|AbortError|other side closed/i;

/** Every error in the chain: the error itself, its `cause`, ethers' `error` and `info.error`. */
function* walk(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < 16) {
    const current = pending.shift();
    if (current === undefined || current === null || seen.has(current)) continue;
    seen.add(current);
    yield current;
    if (typeof current !== "object") continue;
    const e = current as { cause?: unknown; error?: unknown; info?: { error?: unknown } };
    pending.push(e.cause, e.error, e.info?.error);
  }
}

const textOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined;

/** A JSON-RPC error object (`{ code, message, data? }`) as a node sends it, or its wrapper. */
function nodeAnswer(e: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (e instanceof RpcResponseError) return { code: e.code, message: e.message, data: e.data };
  if (typeof e !== "object" || e === null || e instanceof Error) return undefined;
  const { code, message, data } = e as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code !== "number" || typeof message !== "string") return undefined;
  return { code, message, data };
}

function hasRevertData(data: unknown): boolean {
  if (typeof data === "string") return data.startsWith("0x") && data.length > 2;
  const nested = (data as { data?: unknown } | null)?.data;
  return typeof nested === "string" && nested.startsWith("0x") && nested.length > 2;
}

function kindOfLink(e: unknown): RpcFailureKind | undefined {
  if (e instanceof RpcUnavailableError || e instanceof RpcAnswerLostError) return "unavailable";
  if (e instanceof RpcResponseError && e.retryable) return "unavailable";
  const answer = nodeAnswer(e);
  if (answer !== undefined) {
    if (hasRevertData(answer.data)) return "revert";
    // As `RpcResponseError.retryable`: the same answer inside an ethers error means the same.
    if (answer.code === -32005 || TRANSIENT.test(answer.message)) return "unavailable";
    for (const [kind, pattern] of NODE_MESSAGES) if (pattern.test(answer.message)) return kind;
    if (answer.code === 3) return "revert";
    return undefined;
  }
  for (const [code, kind] of ETHERS_KINDS) if (isError(e, code)) return kind;
  const { name, message, code } = e as { name?: unknown; message?: unknown; code?: unknown };
  const text = [textOf(name), textOf(message), textOf(code)].filter(Boolean).join(" ");
  if (CONNECTION_FAILURE.test(text)) return "unavailable";
  return undefined;
}

/**
 * Sorts any error from the node (the RPC client's, an ethers error, or a wrapper of either) into
 * the kind the engine acts on. The outermost error that says something decides.
 *
 * @example
 * classifyRpcFailure(new RpcResponseError("eth_sendRawTransaction", -32003, "nonce too low", undefined)) // "nonce-too-low"
 */
export function classifyRpcFailure(error: unknown): RpcFailureKind {
  for (const link of walk(error)) {
    const kind = kindOfLink(link);
    if (kind !== undefined) return kind;
  }
  return "other";
}

/**
 * Whether asking again later may succeed: the node is unreachable or timed out, an answer was
 * lost, or the node said "not now" (still indexing, behind, rate-limited). Workers retry these;
 * everything else is the node's answer.
 */
export const isRetryable = (error: unknown): boolean => classifyRpcFailure(error) === "unavailable";

/** The node cannot be reached, timed out or failed on its side (HTTP 5xx/429): retry later. */
export const isUnavailable = (error: unknown): boolean =>
  classifyRpcFailure(error) === "unavailable";

/** The transaction's nonce is already used on chain. */
export const isNonceTooLow = (error: unknown): boolean =>
  classifyRpcFailure(error) === "nonce-too-low";

/** This exact transaction is already in the node's pool. */
export const isAlreadyKnown = (error: unknown): boolean =>
  classifyRpcFailure(error) === "already-known";

/** The fees are too low: a replacement must pay more, or the cap is below the base fee. */
export const isUnderpriced = (error: unknown): boolean =>
  classifyRpcFailure(error) === "underpriced";

/** The sender cannot pay gas * price + value. */
export const isInsufficientFunds = (error: unknown): boolean =>
  classifyRpcFailure(error) === "insufficient-funds";

/** Execution reverted (a call, a gas estimate, or a receipt's replay). */
export const isRevert = (error: unknown): boolean => classifyRpcFailure(error) === "revert";

/**
 * Whether a low-level error (fetch, socket, timeout) means the node cannot be reached.
 * Same as `isUnavailable`; kept under the engine's name for its callers.
 */
export const isConnectionFailure = isUnavailable;

/**
 * A batch entry the node never answered (`RpcAnswerLostError`): the request may or may not have
 * reached the node. For a broadcast it means "possibly in a pool", never "refused".
 */
export const isAnswerLost = (error: unknown): boolean =>
  [...walk(error)].some((link) => link instanceof RpcAnswerLostError);

/** The JSON-RPC error answers of every link of the chain. */
function nodeAnswers(error: unknown): Array<{ code: number; message: string }> {
  return [...walk(error)].flatMap((link) => {
    const answer = nodeAnswer(link);
    return answer === undefined ? [] : [answer];
  });
}

/** Codes and words nodes use for a method they do not have (or do not expose on this port). */
const METHOD_NOT_FOUND_CODES = new Set([-32601, -32604]);
const METHOD_NOT_FOUND =
  /method not found|does not exist\/is not available|method not (supported|enabled|available|allowed)|method \S+ is not supported|unsupported method|not whitelisted/i;

/**
 * The node does not have this method: JSON-RPC -32601 (geth, Besu, anvil, Nethermind), Besu's
 * -32604 "Method not enabled", Hardhat's node's -32004 "Method eth_x is not supported" (EIP-1474's
 * code for it), or a gateway's "unsupported method". Says nothing about whether
 * the node is up: an unreachable node is `isUnavailable`, not this.
 *
 * @example
 * isMethodNotFound(new RpcResponseError("eth_getBlockReceipts", -32601, "Method not found", undefined)) // true
 */
export const isMethodNotFound = (error: unknown): boolean =>
  nodeAnswers(error).some(
    (a) => METHOD_NOT_FOUND_CODES.has(a.code) || METHOD_NOT_FOUND.test(a.message),
  );

/** Words nodes and gateways use when they refuse a batch or its size. */
const BATCH_REFUSED =
  /batch|number of requests exceeds|too many requests in|request entity too large|payload too large/i;

/**
 * Whether an error answer to a JSON-RPC batch refuses the batch itself (rather than answering
 * one of its requests): -32600 "invalid request" (geth's "batch too large"), Besu's "Number of
 * requests exceeds max batch size", or any answer that talks about batches. Only the RPC client
 * asks this, and only of an answer that does not fit the batch it sent (`readBatchReply`).
 */
export function isBatchRefusal(answer: { code?: unknown; message?: unknown }): boolean {
  if (answer.code === -32600) return true;
  return typeof answer.message === "string" && BATCH_REFUSED.test(answer.message);
}

/** Words nodes use when they refuse a transaction's type (a type-2 transaction on a pre-London chain). */
const TX_TYPE_UNSUPPORTED =
  /transaction type not supported|tx type not supported|invalid transaction type|INVALID_TRANSACTION_TYPE|transaction type \S+ is invalid|EIP-1559 .*not supported|not supported by the current hardfork|eip-1559 transactions are not (yet )?(supported|enabled)/i;

/**
 * The node refused a transaction for its type: a type-2 (EIP-1559) transaction sent to a chain
 * before London. The fee model changed under the engine (or was never what it assumed): detect
 * it again (`FeeOracle.redetect`).
 *
 * @example
 * isTxTypeUnsupported(new RpcResponseError("eth_sendRawTransaction", -32602, "EIP-1559 style fee params (maxFeePerGas or maxPriorityFeePerGas) received but they are not supported by the current hardfork.", undefined)) // true
 */
export const isTxTypeUnsupported = (error: unknown): boolean =>
  nodeAnswers(error).some((a) => TX_TYPE_UNSUPPORTED.test(a.message));

/**
 * Runs a chain call, turning "node unreachable" failures into `RpcUnavailableError` (503
 * `RPC unavailable`). Other errors pass through unchanged.
 *
 * @example
 * const wei = await withRpc(() => ctx.provider.getBalance(address));
 */
export async function withRpc<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof RpcUnavailableError) && isUnavailable(error))
      throw new RpcUnavailableError({ cause: error });
    throw error;
  }
}
