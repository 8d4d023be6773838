import { RpcUnavailableError } from "../errors.js";
import { isUnavailable, RpcResponseError } from "./rpc-errors.js";

/** One request of a JSON-RPC batch. */
export interface RpcCall {
  method: string;
  params: unknown[];
}

/** One JSON-RPC request as sent on the wire. */
export interface RpcRequest {
  jsonrpc: "2.0";
  id: number;
  method: string;
  params: unknown[];
}

/** One JSON-RPC answer as the node sent it. */
export interface RpcAnswer {
  id?: number;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

/** What the client knows about one node URL (for `/metrics`, status and logs). */
export interface RpcEndpointState {
  /** Host and port only: URLs may carry an API key in their path or query. */
  label: string;
  /** False after a connection failure, true again after a success or a passing health check. */
  up: boolean;
  /** Answers received and connection failures, since start. */
  requests: number;
  failures: number;
  /** Last health check: head block and round trip, when it answered. */
  headBlock: number | undefined;
  latencyMs: number | undefined;
}

/** Tuning of `RpcClient`. */
export interface RpcClientOptions {
  /**
   * Per HTTP round trip, per endpoint (default 10 s: a loaded 2-core machine answered some calls
   * in more than 5 s during the test suite; a node slower than that counts as down).
   */
  timeoutMs?: number;
}

/** Splits `RPC_URL`'s comma-separated list into URLs (blank entries dropped). */
export function parseRpcUrls(value: string | readonly string[]): string[] {
  const list = typeof value === "string" ? value.split(",") : [...value];
  return list.map((url) => url.trim()).filter((url) => url.length > 0);
}

function labelOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "invalid-url";
  }
}

interface Endpoint {
  url: string;
  state: RpcEndpointState;
}

/**
 * The relayer's one JSON-RPC client: plain fetch (keep-alive), no start-up probing, no hidden
 * retry loops, batching on request, a timeout per round trip, and failover across several node
 * URLs (`RPC_URL=http://a:8545,http://b:8545`). Endpoints are tried in the order given, healthy
 * ones first; a connection failure marks an endpoint down and the same request goes to the next
 * one; `checkHealth` (run periodically by `startHealthChecks`) brings it back. Failures come in two
 * classes: `RpcUnavailableError` (no endpoint reachable, timeout, HTTP 5xx/429: retryable) and
 * `RpcResponseError` (a node answered with an error: reverts, nonce too low, ...; see
 * `rpc-errors.ts`). The ethers provider (`rpc-provider.ts`) and the chain reader go through it.
 *
 * @example
 * const rpc = new RpcClient("http://127.0.0.1:8545,http://127.0.0.1:8546");
 * const count = BigInt(await rpc.call<string>("eth_getTransactionCount", [address, "pending"]));
 */
export class RpcClient {
  /** The first URL given (the preferred endpoint). */
  readonly url: string;
  readonly #endpoints: Endpoint[];
  readonly #timeoutMs: number;
  #id = 0;
  #healthTimer: NodeJS.Timeout | undefined;

  /** @param urls one URL, a comma-separated list, or an array of URLs */
  constructor(urls: string | readonly string[], options: RpcClientOptions = {}) {
    const list = parseRpcUrls(urls);
    if (list.length === 0) throw new TypeError("RpcClient needs at least one URL");
    this.url = list[0]!;
    this.#endpoints = list.map((url) => ({
      url,
      state: {
        label: labelOf(url),
        up: true,
        requests: 0,
        failures: 0,
        headBlock: undefined,
        latencyMs: undefined,
      },
    }));
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Every endpoint's state, in the configured order (copies). */
  get endpoints(): RpcEndpointState[] {
    return this.#endpoints.map((e) => ({ ...e.state }));
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
    const requests = this.requests(calls);
    const answers = await this.exchange(requests);
    const byId = new Map(answers.map((a) => [a.id, a]));
    return requests.map((request) => {
      const answer = byId.get(request.id);
      if (answer === undefined)
        return new RpcResponseError(request.method, -32603, "missing answer in batch", undefined);
      try {
        return unwrap(request.method, answer);
      } catch (error) {
        return error;
      }
    });
  }

  /** Numbers calls as wire requests with this client's ids. */
  requests(calls: readonly RpcCall[]): RpcRequest[] {
    return calls.map((c) => ({
      jsonrpc: "2.0",
      id: ++this.#id,
      method: c.method,
      params: c.params,
    }));
  }

  /**
   * Sends wire requests (ids already set) in one round trip and returns the raw answers, errors
   * included, for callers that map answers themselves (the ethers provider).
   */
  async exchange(requests: readonly RpcRequest[]): Promise<RpcAnswer[]> {
    const answers = await this.#post(requests.length === 1 ? requests[0] : requests);
    const list = Array.isArray(answers) ? answers : [answers];
    if (!list.every((a) => typeof a === "object" && a !== null))
      throw new RpcUnavailableError({ details: { reason: "malformed JSON-RPC answer" } });
    return list as RpcAnswer[];
  }

  /**
   * Asks every endpoint for its head block (`eth_blockNumber`) and records whether it answered,
   * its head and the round trip. Never throws.
   */
  async checkHealth(): Promise<RpcEndpointState[]> {
    await Promise.all(
      this.#endpoints.map(async (endpoint) => {
        const started = performance.now();
        try {
          const answer = (await this.#postTo(endpoint, {
            jsonrpc: "2.0",
            id: ++this.#id,
            method: "eth_blockNumber",
            params: [],
          })) as RpcAnswer;
          const head = unwrap<string>("eth_blockNumber", answer);
          endpoint.state.headBlock = Number(BigInt(head));
          endpoint.state.latencyMs = Math.round(performance.now() - started);
          endpoint.state.up = true;
        } catch {
          endpoint.state.up = false;
          endpoint.state.latencyMs = undefined;
        }
      }),
    );
    return this.endpoints;
  }

  /** Runs `checkHealth` every `intervalMs` until `stopHealthChecks` (the timer never holds the process). */
  startHealthChecks(intervalMs = 5_000): void {
    if (this.#healthTimer !== undefined) return;
    this.#healthTimer = setInterval(() => void this.checkHealth(), intervalMs);
    this.#healthTimer.unref();
  }

  stopHealthChecks(): void {
    clearInterval(this.#healthTimer);
    this.#healthTimer = undefined;
  }

  /** Endpoints to try, healthy ones first, each group in the configured order. */
  #order(): Endpoint[] {
    return [
      ...this.#endpoints.filter((e) => e.state.up),
      ...this.#endpoints.filter((e) => !e.state.up),
    ];
  }

  async #post(body: unknown): Promise<unknown> {
    let last: unknown;
    for (const endpoint of this.#order()) {
      try {
        return await this.#postTo(endpoint, body);
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        last = error;
      }
    }
    throw last instanceof RpcUnavailableError ? last : new RpcUnavailableError({ cause: last });
  }

  async #postTo(endpoint: Endpoint, body: unknown): Promise<unknown> {
    const fail = (options: ConstructorParameters<typeof RpcUnavailableError>[0]) => {
      endpoint.state.up = false;
      endpoint.state.failures += 1;
      return new RpcUnavailableError({
        ...options,
        details: { ...options?.details, endpoint: endpoint.state.label },
      });
    };
    let response: Response;
    try {
      response = await fetch(endpoint.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (cause) {
      throw fail({ cause });
    }
    if (response.status >= 500 || response.status === 429) {
      await response.body?.cancel().catch(() => undefined);
      throw fail({ details: { status: response.status } });
    }
    let answer: unknown;
    try {
      answer = await response.json();
    } catch (cause) {
      throw fail({ cause, details: { reason: "malformed JSON-RPC answer" } });
    }
    endpoint.state.requests += 1;
    endpoint.state.up = true;
    return answer;
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
