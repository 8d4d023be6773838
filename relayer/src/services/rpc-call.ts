import { isError } from "ethers";
import { RpcUnavailableError } from "../errors.js";

/** Whether an ethers/fetch error means the node could not be reached or did not answer. */
export function isRpcConnectionError(error: unknown): boolean {
  if (
    isError(error, "NETWORK_ERROR") ||
    isError(error, "TIMEOUT") ||
    isError(error, "SERVER_ERROR")
  )
    return true;
  const message = (error as { message?: unknown } | null)?.message;
  const cause = (error as { cause?: { message?: unknown; code?: unknown } } | null)?.cause;
  const text = [message, cause?.message, cause?.code]
    .filter((part) => typeof part === "string")
    .join(" ");
  return /ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|EHOSTUNREACH/i.test(text);
}

/**
 * Runs a chain call, turning "node unreachable" failures into `RpcUnavailableError` (503
 * `RPC unavailable`). Other errors pass through unchanged.
 */
export async function withRpc<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isRpcConnectionError(error)) throw new RpcUnavailableError({ cause: error });
    throw error;
  }
}
