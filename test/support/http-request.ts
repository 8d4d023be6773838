// Response bodies are untyped JSON in tests; `any` keeps assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** Options of one request. */
export interface ApiCallOptions {
  /** JSON-encoded unless it is a string (sent as is). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as `X-API-Key`. */
  apiKey?: string;
  /** Sent as `X-Admin-Token`. */
  adminToken?: string;
  /** Abort (and reject) after this many ms; no deadline when absent. */
  timeoutMs?: number;
}

/**
 * One HTTP request as the tests make it: JSON bodies unless `body` is a string, the body of a
 * JSON answer parsed (its text kept when it does not parse).
 *
 * @example
 * const res = await httpRequest(baseUrl, "GET", "/api/enterprise/wallet", { apiKey });
 * assert.equal(res.status, 200, res.text);
 */
export async function httpRequest(
  baseUrl: string,
  method: string,
  urlPath: string,
  options: ApiCallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers["x-api-key"] = options.apiKey;
  if (options.adminToken !== undefined) headers["x-admin-token"] = options.adminToken;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
      headers["content-type"] = "application/json";
  }
  const response = await fetch(`${baseUrl}${urlPath}`, {
    method,
    headers,
    body,
    ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get("content-type") ?? "").includes("json")) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}
