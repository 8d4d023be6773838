import { request, type Dispatcher } from "undici";
import { RpcUnavailableError } from "../../errors.js";
import {
  isBatchRefusal,
  isUnavailable,
  RpcAnswerLostError,
  RpcResponseError,
} from "./rpc-errors.js";

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

/** One JSON-RPC answer as the node sent it (`id` null in an error about the request as a whole). */
export interface RpcAnswer {
  id?: number | string | null;
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
  /**
   * Whether the endpoint takes JSON-RPC batches: "unknown" until a batch was sent, "refused"
   * after it refused one (batches then go as single calls until `batchRecheckMs` has passed).
   */
  batches: "unknown" | "yes" | "refused";
  /** The largest batch size seen accepted after a larger one was refused (a size cap), if any. */
  batchCap: number | undefined;
}

/** Tuning of `RpcClient`. */
export interface RpcClientOptions {
  /**
   * Per HTTP round trip, per endpoint (default 10 s: a loaded 2-core machine answered some calls
   * in more than 5 s during the test suite; a node slower than that counts as down).
   */
  timeoutMs?: number;
  /**
   * The most requests sent in one batch (`config.rpcMaxBatch`, env `RPC_MAX_BATCH`, default
   * 100); a larger batch goes as several, in order.
   */
  maxBatch?: number;
  /** Single calls in flight at once for an endpoint that refuses batches (default 8). */
  singleConcurrency?: number;
  /**
   * How long an endpoint's refusal of batches, or a size cap learned from it, is trusted before
   * a full batch is tried again (default 10 min): a node upgraded or reconfigured is noticed.
   */
  batchRecheckMs?: number;
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
  /** When `state.batches` became "refused" or `state.batchCap` was learned. */
  batchLearnedAt: number;
}

/** What a batch's reply means: the answers, or a refusal of the batch itself. */
export type BatchReply =
  | { kind: "answers"; answers: RpcAnswer[] }
  | { kind: "refused"; reason: string };

/**
 * Reads the reply to a JSON-RPC batch: its answers, or a refusal of the batch as such. A refusal
 * is an HTTP 4xx, a single error object instead of an array, an empty array, or an array that
 * does not fit the batch and carries an error about the batch (-32600, "batch too large", an
 * error with no id or an id the batch did not use). An array that fits, or that only misses
 * some ids, is answers: a missing id is an answer lost (`RpcAnswerLostError`), not a refusal.
 *
 * @param requests the batch as sent
 * @param status the HTTP status of the reply
 * @param body the parsed JSON body (undefined when it was not JSON)
 * @example
 * readBatchReply(requests, 200, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch not supported" } })
 * // { kind: "refused", reason: "batch not supported" }
 */
export function readBatchReply(
  requests: readonly RpcRequest[],
  status: number,
  body: unknown,
): BatchReply {
  const ids = new Set<unknown>(requests.map((r) => r.id));
  const isAnswer = (a: unknown): a is RpcAnswer => typeof a === "object" && a !== null;
  if (Array.isArray(body) && body.length > 0 && body.every(isAnswer)) {
    const answers = body;
    const fits =
      answers.length === requests.length &&
      answers.every((a) => a.id !== undefined && ids.has(a.id));
    if (fits) return { kind: "answers", answers };
    const refusal = answers.find(
      (a) =>
        a.error !== undefined &&
        (a.id === undefined || a.id === null || !ids.has(a.id) || isBatchRefusal(a.error)),
    );
    if (refusal === undefined && status < 400) return { kind: "answers", answers };
    return {
      kind: "refused",
      reason:
        refusal?.error?.message ??
        `HTTP ${status} with ${answers.length} of ${requests.length} answers`,
    };
  }
  if (status >= 400) return { kind: "refused", reason: `HTTP ${status}` };
  if (isAnswer(body) && !Array.isArray(body)) {
    return { kind: "refused", reason: body.error?.message ?? "a single answer to a batch" };
  }
  const shape = !Array.isArray(body)
    ? "not a JSON-RPC answer"
    : body.length === 0
      ? "an empty array"
      : "an array of malformed answers";
  return { kind: "refused", reason: `${shape} to a batch` };
}

/** Whether the endpoint is known to refuse batches (a function: the state changes across awaits). */
function refusesBatches(endpoint: Endpoint): boolean {
  return endpoint.state.batches === "refused";
}

/** Splits `list` into runs of at most `size`. */
function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** Runs `work` over `items` with at most `limit` at a time; results in the items' order. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * The relayer's one JSON-RPC client: undici's request (keep-alive), no start-up probing, no hidden
 * retry loops, batching on request, a timeout per round trip, and failover across several node
 * URLs (`RPC_URL=http://a:8545,http://b:8545`). Endpoints are tried in the order given, healthy
 * ones first; a connection failure marks an endpoint down and the same request goes to the next
 * one; `checkHealth` (run periodically by `startHealthChecks`) brings it back. Failures come in two
 * classes: `RpcUnavailableError` (no endpoint reachable, timeout, HTTP 5xx/429: retryable) and
 * `RpcResponseError` (a node answered with an error: reverts, nonce too low, ...; see
 * `rpc-errors.ts`). The ethers provider (`rpc-provider.ts`) and the chain reader go through it.
 *
 * Batches follow the node's dialect: a batch larger than `maxBatch` goes in chunks; an endpoint
 * that refuses a batch (`readBatchReply`) gets it again as single calls (`singleConcurrency` at
 * a time; broadcasts one after the other, in order, so nonces arrive in order) and is
 * remembered as refusing batches. A refused batch of more than two is followed by a batch of
 * two: refused too, batches are off; taken, the node has a size cap, found by halving. Both are re-checked after `batchRecheckMs`. A batch entry the node
 * did not answer is an `RpcAnswerLostError`, never a refusal.
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
  readonly #maxBatch: number;
  readonly #singleConcurrency: number;
  readonly #batchRecheckMs: number;
  #id = 0;
  #healthTimer: NodeJS.Timeout | undefined;
  /** Requests sent per JSON-RPC method since start, batched ones counted one by one. */
  readonly #sentByMethod = new Map<string, number>();

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
        batches: "unknown",
        batchCap: undefined,
      },
      batchLearnedAt: 0,
    }));
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#maxBatch = Math.max(1, Math.floor(options.maxBatch ?? 100));
    this.#singleConcurrency = Math.max(1, Math.floor(options.singleConcurrency ?? 8));
    this.#batchRecheckMs = options.batchRecheckMs ?? 600_000;
  }

  /** The most requests this client sends in one batch (`maxBatch`). */
  get maxBatch(): number {
    return this.#maxBatch;
  }

  /** Every endpoint's state, in the configured order (copies). */
  get endpoints(): RpcEndpointState[] {
    return this.#endpoints.map((e) => ({ ...e.state }));
  }

  /**
   * Requests sent per method since start (each request of a batch counts; a retry on another
   * endpoint counts again): what this process asks of the node, for `/metrics`.
   */
  get sentByMethod(): ReadonlyMap<string, number> {
    return this.#sentByMethod;
  }

  /** Sends one request and returns its `result`. */
  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const id = ++this.#id;
    const answer = await this.#post({ jsonrpc: "2.0", id, method, params });
    return unwrap<T>(method, answer);
  }

  /**
   * Sends several requests as one JSON-RPC batch (in chunks of `maxBatch`; as single calls to a
   * node that refuses batches). Each entry is the result or the `RpcResponseError` of that
   * request; a request the node left unanswered is an `RpcAnswerLostError` (`isAnswerLost`). A
   * connection failure rejects the whole batch.
   */
  async batch(calls: readonly RpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const requests = this.requests(calls);
    const answers = await this.exchange(requests);
    const byId = new Map(answers.map((a) => [a.id, a]));
    return requests.map((request) => {
      const answer = byId.get(request.id);
      if (answer === undefined) return new RpcAnswerLostError(request.method);
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
   * Sends wire requests (ids already set) and returns the raw answers, errors included, for
   * callers that map answers themselves (the ethers provider). Several requests go as one batch
   * where the endpoint takes batches (in chunks of `maxBatch`), else as single calls; a request
   * the node did not answer is missing from the result.
   */
  async exchange(requests: readonly RpcRequest[]): Promise<RpcAnswer[]> {
    if (requests.length === 0) return [];
    return this.#withFailover((endpoint) =>
      requests.length === 1
        ? this.#singleOn(endpoint, requests[0]!).then((answer) => [answer])
        : this.#exchangeOn(endpoint, requests),
    );
  }

  /**
   * Sends `size` `eth_chainId` requests as one batch to the preferred endpoint and says whether
   * it was taken (all answered) or refused, without the fallback `exchange` applies and without
   * changing what the client remembers (the node probe's and the doctor's question).
   *
   * @throws RpcUnavailableError when no endpoint can be reached
   */
  async probeBatch(size: number): Promise<BatchReply> {
    const requests = this.requests(
      Array.from({ length: Math.max(2, size) }, () => ({ method: "eth_chainId", params: [] })),
    );
    return this.#withFailover(async (endpoint) => {
      const { status, body } = await this.#postTo(endpoint, requests);
      return readBatchReply(requests, status, body);
    });
  }

  /** A batch on one endpoint: chunked, or as single calls where batches are refused. */
  async #exchangeOn(endpoint: Endpoint, requests: readonly RpcRequest[]): Promise<RpcAnswer[]> {
    this.#forgetStaleBatchKnowledge(endpoint);
    if (refusesBatches(endpoint)) return this.#singlesOn(endpoint, requests);
    const size = Math.min(this.#maxBatch, endpoint.state.batchCap ?? Infinity);
    const parts = chunks(requests, size);
    // Broadcasts keep their order (a wallet's nonces); other chunks may overlap.
    const lanes = requests.some((r) => r.method === "eth_sendRawTransaction") ? 1 : 4;
    return (await mapLimit(parts, lanes, (part) => this.#chunkOn(endpoint, part))).flat();
  }

  async #chunkOn(endpoint: Endpoint, requests: RpcRequest[]): Promise<RpcAnswer[]> {
    if (requests.length === 1) return [await this.#singleOn(endpoint, requests[0]!)];
    if (refusesBatches(endpoint)) return this.#singlesOn(endpoint, requests);
    const { status, body } = await this.#postTo(endpoint, requests);
    const reply = readBatchReply(requests, status, body);
    if (reply.kind === "answers") {
      endpoint.state.batches = "yes";
      return reply.answers;
    }
    endpoint.batchLearnedAt = Date.now();
    if (requests.length > 2) {
      // A refusal of batches, or of this size? The first two requests as a batch tell.
      const answers = await this.#chunkOn(endpoint, requests.slice(0, 2));
      const rest = requests.slice(2);
      if (refusesBatches(endpoint)) return [...answers, ...(await this.#singlesOn(endpoint, rest))];
      // A size cap: halve (a half refused again halves again, down to 2).
      const half = Math.max(2, Math.ceil(requests.length / 2));
      endpoint.state.batchCap = Math.min(endpoint.state.batchCap ?? Infinity, half);
      for (const part of chunks(rest, endpoint.state.batchCap))
        answers.push(...(await this.#chunkOn(endpoint, part)));
      return answers;
    }
    endpoint.state.batches = "refused";
    endpoint.state.batchCap = undefined;
    return this.#singlesOn(endpoint, requests);
  }

  /** Requests one by one; broadcasts strictly in order, other calls a few at a time. */
  async #singlesOn(endpoint: Endpoint, requests: readonly RpcRequest[]): Promise<RpcAnswer[]> {
    const lanes = requests.some((r) => r.method === "eth_sendRawTransaction")
      ? 1
      : this.#singleConcurrency;
    return mapLimit(requests, lanes, (request) => this.#singleOn(endpoint, request));
  }

  async #singleOn(endpoint: Endpoint, request: RpcRequest): Promise<RpcAnswer> {
    const { body } = await this.#postTo(endpoint, request);
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new RpcUnavailableError({
        details: { reason: "malformed JSON-RPC answer", endpoint: endpoint.state.label },
      });
    return body;
  }

  /** After `batchRecheckMs`, a refusal or a size cap is forgotten and a full batch tried again. */
  #forgetStaleBatchKnowledge(endpoint: Endpoint): void {
    const learned = endpoint.state.batches === "refused" || endpoint.state.batchCap !== undefined;
    if (!learned || Date.now() - endpoint.batchLearnedAt < this.#batchRecheckMs) return;
    endpoint.state.batches = "unknown";
    endpoint.state.batchCap = undefined;
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
          const answer = await this.#singleOn(endpoint, {
            jsonrpc: "2.0",
            id: ++this.#id,
            method: "eth_blockNumber",
            params: [],
          });
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

  /** Runs `work` on the endpoints in order until one is reachable (failover). */
  async #withFailover<T>(work: (endpoint: Endpoint) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const endpoint of this.#order()) {
      try {
        return await work(endpoint);
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        last = error;
      }
    }
    throw last instanceof RpcUnavailableError ? last : new RpcUnavailableError({ cause: last });
  }

  async #post(body: RpcRequest): Promise<RpcAnswer> {
    return this.#withFailover((endpoint) => this.#singleOn(endpoint, body));
  }

  /**
   * One HTTP round trip. Connection failures, timeouts, HTTP 5xx/429 and unreadable answers are
   * `RpcUnavailableError` (the endpoint is marked down), except that a batch refused with an
   * HTTP 4xx and a body that is not JSON comes back with `body` undefined: that endpoint is up.
   */
  async #postTo(
    endpoint: Endpoint,
    body: RpcRequest | readonly RpcRequest[],
  ): Promise<{ status: number; body: unknown }> {
    const sent: readonly RpcRequest[] = Array.isArray(body)
      ? (body as readonly RpcRequest[])
      : [body as RpcRequest];
    for (const { method } of sent)
      this.#sentByMethod.set(method, (this.#sentByMethod.get(method) ?? 0) + 1);
    const fail = (options: ConstructorParameters<typeof RpcUnavailableError>[0]) => {
      endpoint.state.up = false;
      endpoint.state.failures += 1;
      return new RpcUnavailableError({
        ...options,
        details: { ...options?.details, endpoint: endpoint.state.label },
      });
    };
    let response: Dispatcher.ResponseData;
    try {
      // undici's request, not fetch: a JSON-RPC call is one small POST, and fetch's web streams
      // and Request/Response objects cost several times the round trip's own CPU.
      response = await request(endpoint.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (cause) {
      throw fail({ cause });
    }
    if (response.statusCode >= 500 || response.statusCode === 429) {
      await response.body.dump().catch(() => undefined);
      throw fail({ details: { status: response.statusCode } });
    }
    let answer: unknown;
    try {
      answer = await response.body.json();
    } catch (cause) {
      if (!(Array.isArray(body) && response.statusCode >= 400))
        throw fail({ cause, details: { reason: "malformed JSON-RPC answer" } });
      answer = undefined;
    }
    endpoint.state.requests += 1;
    endpoint.state.up = true;
    return { status: response.statusCode, body: answer };
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
