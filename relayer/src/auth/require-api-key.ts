import type { NextFunction, Request, Response } from "express";
import type { AppContext } from "../context.js";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import { ipAllowed } from "./allowed-ips.js";
import { roleAllowsRequest } from "./roles.js";
import { authenticateApiKey } from "./api-key-authenticator.js";
import type { ApiKeyPrincipal } from "./api-key-cache.js";
import { hasApiKeyHeaders, sessionOf, sessionPrincipal } from "./session-auth.js";

/**
 * Reads the API key from `X-API-Key` or `Authorization: Bearer <key>` (docs/api-decisions.md).
 * When both are present they must carry the same key; any other `Authorization` scheme, an
 * empty value or a malformed header is 401 `Unauthorized`.
 */
export function apiKeyFromHeaders(req: Request): string {
  const headerKey = req.get("x-api-key")?.trim();
  const authorization = req.get("authorization");
  let bearerKey: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (match === null)
      throw new UnauthorizedError({ details: { reason: "unsupported Authorization header" } });
    bearerKey = match[1];
  }
  if (headerKey !== undefined && bearerKey !== undefined && headerKey !== bearerKey) {
    throw new UnauthorizedError({ details: { reason: "X-API-Key and Authorization differ" } });
  }
  const key = headerKey ?? bearerKey;
  if (key === undefined || key === "")
    throw new UnauthorizedError({ details: { reason: "no API key" } });
  return key;
}

/**
 * Refuses a key used from an address outside its `allowedIps` (403 `API key not allowed from
 * this address`). The address is `req.ip`: the peer, or with `TRUST_PROXY` set, the client that
 * the trusted proxies name in `X-Forwarded-For` (docs/configuration.md).
 */
export function assertUsedFromAllowedAddress(req: Request, principal: ApiKeyPrincipal): void {
  if (principal.allowedIps === undefined) return;
  const ip = req.ip ?? req.socket.remoteAddress;
  if (!ipAllowed(ip, principal.allowedIps))
    throw new ForbiddenError("API key not allowed from this address", {
      details: { keyId: principal.keyId, ip: ip ?? null },
    });
}

/** The authenticated caller of a request that passed `requireApiKey`. */
export function principalOf(res: Response): ApiKeyPrincipal {
  const auth = (res.locals as { auth?: ApiKeyPrincipal }).auth;
  if (auth === undefined)
    throw new UnauthorizedError({ details: { reason: "route is missing requireApiKey" } });
  return auth;
}

/**
 * Middleware: authenticates the API key and stores the caller in `res.locals.auth`
 * (read it with `principalOf(res)`). A revoked key is refused at once by the process that revoked
 * it and within `API_KEY_CACHE_TTL_MS` (2 s) by the others (`authenticateApiKey`).
 *
 * Without API-key headers, an org console session cookie is accepted instead (CSRF-checked on
 * unsafe methods, see `session-auth.ts`): the caller then acts as the key the session was opened
 * with, with the same scopes, so scope checks and rate limits are identical.
 *
 * @example
 * router.post("/api/v1/write/transfer", requireApiKey(ctx), rateLimit(ctx), requireScope("write:transfer"), handler);
 */
export function requireApiKey(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!hasApiKeyHeaders(req)) {
      const session = await sessionOf(ctx, req, res, "org");
      if (session !== undefined) {
        const principal = sessionPrincipal(session);
        const route = (res.locals as { routeTemplate?: string }).routeTemplate ?? req.path;
        if (session.role !== null && !roleAllowsRequest(session.role, req.method, route))
          throw new ForbiddenError(`Not allowed for role ${session.role}`, {
            details: { role: session.role, route },
          });
        (res.locals as { auth?: ApiKeyPrincipal }).auth = principal;
        next();
        return;
      }
    }
    const key = apiKeyFromHeaders(req);
    const principal = await authenticateApiKey(ctx, key);
    assertUsedFromAllowedAddress(req, principal);
    (res.locals as { auth?: ApiKeyPrincipal }).auth = principal;
    next();
  };
}
