import { BaseError, RpcUnavailableError } from "../errors.js";

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

const PATTERNS: ReadonlyArray<[RpcFailureKind, RegExp]> = [
  ["nonce-too-low", /nonce too low|nonce has already been used|NonceTooLow|OldNonce/i],
  ["already-known", /already known|known transaction|already imported|AlreadyKnown/i],
  [
    "underpriced",
    /underpriced|replacement transaction|fee too low|max fee per gas less than block base fee/i,
  ],
  ["insufficient-funds", /insufficient funds|InsufficientFunds|Insufficient balance/i],
  ["revert", /revert|execution reverted|invalid opcode|out of gas/i],
];

/**
 * Sorts an error raised by the RPC client into a kind the engine acts on.
 * Connection failures are already `RpcUnavailableError` (see `rpc-client.ts`).
 */
export function classifyRpcFailure(error: unknown): RpcFailureKind {
  if (error instanceof RpcUnavailableError) return "unavailable";
  if (error instanceof RpcResponseError) {
    if (error.data !== undefined && error.data.length > 2) return "revert";
    for (const [kind, pattern] of PATTERNS) if (pattern.test(error.message)) return kind;
    if (error.code === 3) return "revert";
    return "other";
  }
  return isConnectionFailure(error) ? "unavailable" : "other";
}

/** Whether a low-level error (fetch, socket, timeout) means the node cannot be reached. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof RpcUnavailableError) return true;
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const e = current as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
    for (const part of [e.name, e.message, e.code])
      if (typeof part === "string" || typeof part === "number") parts.push(String(part));
    current = e.cause;
  }
  return /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|UND_ERR|fetch failed|socket hang up|TimeoutError|AbortError|other side closed/i.test(
    parts.join(" "),
  );
}
