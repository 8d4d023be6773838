import { ApiError, NetworkError } from "./errors.js";
import type { RequestOptions } from "./options.js";
import { parseRetryAfter, retryDelayMs, sleep } from "./retry.js";

/** Options every client shares: where the relayer is, and how calls are timed and retried. */
export interface TransportOptions {
  /** The relayer's base URL, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** A `fetch` implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Retries after the first attempt on 429, 503 and (idempotent calls) network errors. Default 3. */
  maxRetries?: number;
  /** Per-attempt timeout in ms. Default 70 000 (a synchronous write waits up to 60 s). */
  timeoutMs?: number;
  /** First backoff delay in ms (doubling, with jitter). Default 500. */
  retryBaseDelayMs?: number;
  /** Longest wait between attempts in ms; a longer `Retry-After` is not waited for. Default 60 000. */
  maxRetryDelayMs?: number;
}

/** One call: method, path, query, body, extra headers, and whether it may be sent again. */
export interface CallSpec {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  /** Safe to resend after a network error (reads, deletes, writes with an idempotency key). */
  idempotent: boolean;
  options: RequestOptions | undefined;
}

/** A successful answer: its status and parsed body. */
export interface CallResult<T> {
  status: number;
  body: T;
}

/**
 * The HTTP side of the SDK's clients: one `fetch` per attempt with a timeout, JSON in and out,
 * retries with backoff (429 and 503, waiting at least `Retry-After`; network errors for idempotent
 * calls only), and `ApiError` / `NetworkError` for what fails. `credentials` are the headers that
 * authenticate every call (`X-API-Key`, or `X-Admin-Token` for operator staff).
 *
 * An answer that names a transaction already sent (`txHash` in the error body, see the README
 * "Compliance controls") is never sent again: the act may be on chain, and the caller decides
 * after looking it up (`ApiError.txHash`).
 */
export class HttpTransport {
  readonly baseUrl: string;
  private readonly credentials: Record<string, string>;
  private readonly fetchImpl: typeof fetch;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(options: TransportOptions, credentials: Record<string, string>) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.credentials = credentials;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxRetries = Math.max(0, options.maxRetries ?? 3);
    this.timeoutMs = options.timeoutMs ?? 70_000;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
  }

  /** `GET path?query`: idempotent, the body of the answer. */
  async get<T>(
    path: string,
    query: Record<string, string | number | undefined> | undefined,
    options: RequestOptions | undefined,
  ): Promise<T> {
    return (await this.call<T>({ method: "GET", path, query, idempotent: true, options })).body;
  }

  private url(path: string, query: CallSpec["query"]): string {
    let url = `${this.baseUrl}${path}`;
    if (query !== undefined) {
      const search = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) {
        if (value !== undefined) search.set(key, String(value));
      }
      const text = search.toString();
      if (text !== "") url += `?${text}`;
    }
    return url;
  }

  /** Sends `spec`, retrying as the class comment says; the first successful answer. */
  async call<T>(spec: CallSpec): Promise<CallResult<T>> {
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = {
      Accept: "application/json",
      ...this.credentials,
      ...spec.headers,
    };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      payload = JSON.stringify(spec.body);
      headers["Content-Type"] = "application/json";
    }
    const policy = { baseDelayMs: this.retryBaseDelayMs, maxDelayMs: this.maxRetryDelayMs };
    const timeoutMs = spec.options?.timeoutMs ?? this.timeoutMs;
    const userSignal = spec.options?.signal;

    for (let attempt = 0; ; attempt += 1) {
      const canRetry = attempt < this.maxRetries;
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      const onAbort = () => controller.abort(userSignal?.reason);
      userSignal?.addEventListener("abort", onAbort, { once: true });
      let response: Response;
      let text: string;
      try {
        if (userSignal?.aborted === true) throw userSignal.reason;
        response = await this.fetchImpl(url, {
          method: spec.method,
          headers,
          body: payload,
          signal: controller.signal,
        });
        text = await response.text();
      } catch (error) {
        if (userSignal?.aborted === true) throw error;
        if (spec.idempotent && canRetry) {
          await sleep(retryDelayMs(attempt, policy, undefined), userSignal);
          continue;
        }
        throw new NetworkError(spec.method, spec.path, error, timedOut);
      } finally {
        clearTimeout(timer);
        userSignal?.removeEventListener("abort", onAbort);
      }

      let body: unknown = text;
      if ((response.headers.get("content-type") ?? "").includes("json") && text !== "") {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      if (response.ok) return { status: response.status, body: body as T };

      const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
      const retryAfterMs = retryAfter === undefined ? undefined : retryAfter * 1000;
      const txHash =
        sentTransactionOf(body) ?? response.headers.get("x-transaction-hash") ?? undefined;
      const retryable =
        (response.status === 429 || response.status === 503) && txHash === undefined;
      if (retryable && canRetry && (retryAfterMs ?? 0) <= this.maxRetryDelayMs) {
        await sleep(retryDelayMs(attempt, policy, retryAfterMs), userSignal);
        continue;
      }
      const error =
        typeof body === "object" &&
        body !== null &&
        typeof (body as { error?: unknown }).error === "string"
          ? (body as { error: string }).error
          : response.statusText || `HTTP ${response.status}`;
      throw new ApiError({
        status: response.status,
        error,
        method: spec.method,
        path: spec.path,
        retryAfter,
        requestId: response.headers.get("x-request-id") ?? undefined,
        txHash,
        body,
      });
    }
  }
}

/** The `txHash` an error body names (an operator act already sent), if any. */
function sentTransactionOf(body: unknown): string | undefined {
  const txHash = (body as { txHash?: unknown } | null)?.txHash;
  return typeof body === "object" && typeof txHash === "string" ? txHash : undefined;
}
