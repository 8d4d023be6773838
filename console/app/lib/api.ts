/**
 * The console's only way to the relayer. Requests are same-origin and carry the httpOnly session
 * cookie automatically (the browser holds no key or token). Unsafe methods add the session's
 * CSRF token header and `X-Requested-With`; the relayer also checks their Origin.
 */

/** A non-2xx answer: `status` and the relayer's `{ error }` message. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

let csrfToken: string | undefined;
let onUnauthorized: (() => void) | undefined;

/** Set by the session provider after sign-in or a session refresh; cleared on sign-out. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when any request answers 401: the session has expired or its key was revoked. */
export function setUnauthorizedHandler(handler: (() => void) | undefined): void {
  onUnauthorized = handler;
}

/** Calls the relayer and returns its JSON body, or throws `ApiError`. */
export async function api<T>(
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
  options: { quiet401?: boolean; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (method !== "GET") {
    headers["X-Requested-With"] = "rwa-console";
    if (csrfToken !== undefined) headers["X-CSRF-Token"] = csrfToken;
  }
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "The relayer cannot be reached. Check your connection and retry.");
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const message =
      typeof parsed === "object" && parsed !== null && "error" in parsed
        ? String(parsed.error)
        : `Request failed (HTTP ${response.status})`;
    if (response.status === 401 && options.quiet401 !== true) onUnauthorized?.();
    throw new ApiError(response.status, message);
  }
  return parsed as T;
}

/** A query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

/** A human message for any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
