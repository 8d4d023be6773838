import { RpcUnavailableError } from "../errors.js";
import { RpcResponseError } from "./rpc-errors.js";

/** One request of a JSON-RPC batch. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

interface RpcAnswer {
  id?: number;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

/**
 * A small JSON-RPC client over fetch (keep-alive) for the transaction engine: no provider
 * start-up probing, no hidden retry loops, no request batching delay, and failures split in two
 * classes: `RpcUnavailableError` (node unreachable, timeout, HTTP 5xx: retryable) and
 * `RpcResponseError` (the node answered with an error: reverts, nonce too low, ...).
 *
 * @example
 * const rpc = new RpcClient("http://127.0.0.1:8545");
 * const count = BigInt(await rpc.call<string>("eth_getTransactionCount", [address, "pending"]));
 */
export class RpcClient {
  readonly url: string;
  readonly #timeoutMs: number;
  #id = 0;

  constructor(url: string, options: { timeoutMs?: number } = {}) {
    this.url = url;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
  }

  /** Sends one request and returns its `result`. */
  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = ++this.#id;
    const answer = (await this.#post({ jsonrpc: "2.0", id, method, params })) as RpcAnswer;
    return unwrap<T>(method, answer);
  }

  /**
   * Sends several requests in one HTTP round trip. Each entry is the result or the
   * `RpcResponseError` of that request (a connection failure rejects the whole batch).
   */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const first = this.#id + 1;
    this.#id += calls.length;
    const body = calls.map((c, i) => ({
      jsonrpc: "2.0",
      id: first + i,
      method: c.method,
      params: c.params,
    }));
    const answers = (await this.#post(body)) as RpcAnswer[];
    if (!Array.isArray(answers))
      throw new RpcUnavailableError({ details: { reason: "batch answer is not an array" } });
    const byId = new Map(answers.map((a) => [a.id, a]));
    return calls.map((c, i) => {
      const answer = byId.get(first + i);
      if (answer === undefined)
        return new RpcResponseError(c.method, -32603, "missing answer in batch", undefined);
      try {
        return unwrap(c.method, answer);
      } catch (error) {
        return error;
      }
    });
  }

  async #post(body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (cause) {
      throw new RpcUnavailableError({ cause });
    }
    if (response.status >= 500 || response.status === 429) {
      throw new RpcUnavailableError({ details: { status: response.status } });
    }
    try {
      return await response.json();
    } catch (cause) {
      throw new RpcUnavailableError({ cause, details: { reason: "malformed JSON-RPC answer" } });
    }
  }
}

function unwrap<T>(method: string, answer: RpcAnswer): T {
  if (answer.error !== undefined) {
    const data = answer.error.data;
    const revertData =
      typeof data === "string" && data.startsWith("0x")
        ? data
        : typeof data === "object" &&
            data !== null &&
            typeof (data as { data?: unknown }).data === "string"
          ? (data as { data: string }).data
          : undefined;
    throw new RpcResponseError(
      method,
      answer.error.code ?? -32603,
      answer.error.message ?? "error",
      revertData,
    );
  }
  return answer.result as T;
}
