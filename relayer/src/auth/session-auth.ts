import { timingSafeEqual } from "node:crypto";
import type { Request, Response } from "express";
import type { AppContext } from "../context.js";
import { ForbiddenError, OrgSuspendedError, UnauthorizedError } from "../errors.js";
import type { ApiKeyPrincipal } from "./api-key-cache.js";
import {
  csrfTokenOf,
  findSession,
  SESSION_MAX_MS,
  type ConsoleSession,
  type SessionKind,
} from "./session-store.js";

/**
 * Cookie-based authentication for the console, and its CSRF protection.
 *
 * Cookie: `rwa_session`, httpOnly, SameSite=Strict, Path=/, Secure when the request came over
 * HTTPS, Max-Age = the absolute session lifetime (the server enforces the shorter idle expiry).
 *
 * CSRF: a request authenticated by the cookie with an unsafe method (anything but GET, HEAD,
 * OPTIONS) must pass both checks, else 403 `CSRF check failed`:
 * 1. `Origin` (or, without it, `Referer`) names this server: its host equals the `Host` header.
 *    A request with neither header is refused.
 * 2. `X-CSRF-Token` equals the session's CSRF token (returned by `GET /api/console/session`;
 *    derived from the cookie, so a cross-site page can neither read nor compute it).
 * SameSite=Strict already keeps the cookie off cross-site requests in current browsers; the two
 * checks cover older browsers, same-site sibling hosts and any CORS mistake later on.
 * Requests carrying an API key (`X-API-Key` / `Authorization`) never look at the cookie, so
 * server-to-server behaviour is unchanged.
 */

/** Name of the session cookie. */
export const SESSION_COOKIE = "rwa_session";
/** Header carrying the session's CSRF token on unsafe cookie-authenticated requests. */
export const CSRF_HEADER = "x-csrf-token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The session cookie's value, when the request carries one. */
export function sessionTokenOf(req: Request): string | undefined {
  const header = req.get("cookie");
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}

/** Whether the request carries API-key credentials (which always take precedence over a cookie). */
export function hasApiKeyHeaders(req: Request): boolean {
  return req.get("x-api-key") !== undefined || req.get("authorization") !== undefined;
}

/**
 * Refuses a request whose `Origin` (or `Referer`) is not this server (403 `CSRF check failed`).
 * With `allowMissing`, a request with neither header passes (non-browser clients such as curl
 * send none; browsers always send `Origin` on POST).
 */
export function assertSameOrigin(req: Request, allowMissing = false): void {
  const host = req.get("host");
  const source = req.get("origin") ?? req.get("referer");
  if (source === undefined && allowMissing) return;
  let sourceHost: string | undefined;
  try {
    sourceHost = source === undefined || source === "null" ? undefined : new URL(source).host;
  } catch {
    sourceHost = undefined;
  }
  if (host === undefined || sourceHost === undefined || sourceHost !== host) {
    throw new ForbiddenError("CSRF check failed", {
      details: { reason: "origin mismatch", origin: source ?? null },
    });
  }
}

function tokensEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Both CSRF checks (origin and token) for an unsafe request authenticated by `token`'s cookie. */
export function assertCsrf(req: Request, token: string): void {
  if (SAFE_METHODS.has(req.method)) return;
  assertSameOrigin(req);
  const presented = req.get(CSRF_HEADER);
  if (presented === undefined || !tokensEqual(presented, csrfTokenOf(token))) {
    throw new ForbiddenError("CSRF check failed", { details: { reason: "bad CSRF token" } });
  }
}

/**
 * Authenticates the request by its session cookie. Returns `undefined` when there is no cookie
 * (the caller then falls back to its own credentials); throws 403 on a failed CSRF check and 401
 * when the cookie is invalid, expired, revoked or not of `kind` (any kind when omitted).
 */
export async function sessionOf(
  ctx: AppContext,
  req: Request,
  res: Response,
  kind?: SessionKind,
): Promise<ConsoleSession | undefined> {
  const token = sessionTokenOf(req);
  if (token === undefined) return undefined;
  assertCsrf(req, token);
  const session = await findSession(ctx, token);
  if (session === undefined || (kind !== undefined && session.kind !== kind)) {
    throw new UnauthorizedError({
      details: { reason: session === undefined ? "invalid session" : `not a ${kind} session` },
    });
  }
  (res.locals as { session?: ConsoleSession }).session = session;
  return session;
}

/**
 * The API-key principal an org session acts as: the key it was opened with, same scopes; a
 * person's session acts as the person, with their role's scopes (`auth/roles.ts`).
 *
 * @throws OrgSuspendedError (403) while operator staff hold the session's organization
 */
export function sessionPrincipal(session: ConsoleSession): ApiKeyPrincipal {
  const actingAs = session.userId ?? session.apiKeyId;
  if (session.orgId === null || actingAs === null) {
    throw new UnauthorizedError({ details: { reason: "not an org session" } });
  }
  if (session.suspended)
    throw new OrgSuspendedError({ details: { orgId: session.orgId, sessionId: session.id } });
  return {
    orgId: session.orgId,
    // A person acts as themselves (rate limits and the audit log count them by user id).
    keyId: actingAs,
    scopes: session.scopes,
    grantedScopes: session.grantedScopes,
    plan: session.plan ?? "free",
  };
}

function isHttps(req: Request): boolean {
  // Only ever makes the cookie stricter, so trusting X-Forwarded-Proto here is harmless.
  return req.secure || req.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** Sets the session cookie (httpOnly, SameSite=Strict, Path=/, Secure over HTTPS). */
export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: isHttps(req),
    maxAge: SESSION_MAX_MS,
  });
}

/** Clears the session cookie. */
export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure: isHttps(req),
  });
}
