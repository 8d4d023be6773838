import { isError } from "ethers";
import { BaseError, RpcUnavailableError } from "../errors.js";

/**
 * The one place where the relayer reads a chain node's errors. Everything else asks a named
 * predicate (`isNonceTooLow(error)`, `isUnavailable(error)`, ...); nobody else matches error text.
 * Each predicate walks the whole chain of wrapped errors (`cause`, ethers' `error` and
 * `info.error`), so it answers the same for the RPC client's own errors, for ethers errors built
 * on top of them and for anything that wraps either. The node texts come from anvil, geth and
 * Besu; `test/unit/rpc-errors.test.ts` holds anvil's real messages.
 */

/** A JSON-RPC error answer from the node (the node is up; the request was refused). */
export class RpcResponseError extends BaseError {
  override name = "RpcResponseError";
  readonly code: number;
  /** Revert data (`0x...`) when the node returned some. */
  readonly data: string | undefined;
  constructor(method: string, code: number, message: string, data: string | undefined) {
    super(`${method}: ${message}`, { details: { code } });
    this.code = code;
    this.data = data;
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
  if (e instanceof RpcUnavailableError) return "unavailable";
  const answer = nodeAnswer(e);
  if (answer !== undefined) {
    if (hasRevertData(answer.data)) return "revert";
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
