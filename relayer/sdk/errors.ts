/** Base class of every error the SDK throws. */
export class RwaSdkError extends Error {
  override name = "RwaSdkError";
}

/** Details of an HTTP error answer. */
export interface ApiErrorInit {
  status: number;
  /** The `error` string of the body (docs/sdk.md "Errors and retries"), or the status text when there was none. */
  error: string;
  method: string;
  path: string;
  /** Seconds from `Retry-After` (429 and 503), when the server sent it. */
  retryAfter?: number | undefined;
  requestId?: string | undefined;
  /** The transaction an operator act had already sent when it failed (`txHash` of the body). */
  txHash?: string | undefined;
  body?: unknown;
}

/**
 * The API answered with an error status. `error` is the service's own string
 * (`Missing required field: name`, `Insufficient scope`, `Transaction failed: <reason>`, ...).
 *
 * @example
 * try { await client.issueAsset(asset); }
 * catch (e) { if (e instanceof ApiError && e.status === 400) console.log(e.error); }
 */
export class ApiError extends RwaSdkError {
  override name = "ApiError";
  readonly status: number;
  readonly error: string;
  readonly method: string;
  readonly path: string;
  readonly retryAfter: number | undefined;
  readonly requestId: string | undefined;
  /**
   * Set when the failed call had already sent a transaction (an operator act whose receipt the
   * relayer could not read, a revert): it may be on chain, look it up before trying again.
   * Such an answer is never retried by the SDK.
   */
  readonly txHash: string | undefined;
  readonly body: unknown;

  constructor(init: ApiErrorInit) {
    super(`${init.method} ${init.path} failed with ${init.status}: ${init.error}`);
    this.status = init.status;
    this.error = init.error;
    this.method = init.method;
    this.path = init.path;
    this.retryAfter = init.retryAfter;
    this.requestId = init.requestId;
    this.txHash = init.txHash;
    this.body = init.body;
  }
}

/**
 * The request never got an HTTP answer (connection refused, reset, DNS, or `timeoutMs`). For a
 * write, the call may still have reached the server: retry with the same `idempotencyKey`.
 */
export class NetworkError extends RwaSdkError {
  override name = "NetworkError";
  readonly method: string;
  readonly path: string;
  readonly timedOut: boolean;

  constructor(method: string, path: string, cause: unknown, timedOut: boolean) {
    super(`${method} ${path}: ${timedOut ? "timed out" : `network error (${describe(cause)})`}`, {
      cause,
    });
    this.method = method;
    this.path = path;
    this.timedOut = timedOut;
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    return inner instanceof Error ? `${cause.message}: ${inner.message}` : cause.message;
  }
  return String(cause);
}
