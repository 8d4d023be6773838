import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { AppContext } from "../context.js";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import { hasApiKeyHeaders, sessionOf, sessionTokenOf } from "./session-auth.js";

/**
 * Constant-time check of a presented admin token against the configured one. Both are hashed
 * first so the comparison has a fixed length whatever the caller sends.
 */
export function adminTokenMatches(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b) && presented.length === expected.length;
}

/**
 * Middleware for operator-staff endpoints: `X-Admin-Token` must equal `config.adminToken`.
 * A missing, malformed or wrong token is 403 `Admin token required` (the spec's string for
 * "the endpoint needs X-Admin-Token"); a wrong token is not distinguished from a missing one.
 * Sets `res.locals.admin = true`.
 *
 * Without the header, an operator console session cookie is accepted instead (CSRF-checked on
 * unsafe methods, see `session-auth.ts`).
 */
export function requireAdminToken(ctx: AppContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.get("x-admin-token") === undefined && sessionTokenOf(req) !== undefined) {
      const session = await sessionOf(ctx, req, res, "operator").catch((error: unknown) => {
        // Keep the spec's answer for "needs the admin token" when the cookie is not an operator's.
        if (error instanceof UnauthorizedError) return undefined;
        throw error;
      });
      if (session !== undefined) {
        (res.locals as { admin?: boolean }).admin = true;
        next();
        return;
      }
    }
    const presented = req.get("x-admin-token")?.trim();
    if (presented === undefined || !adminTokenMatches(presented, ctx.config.adminToken)) {
      throw new ForbiddenError("Admin token required", {
        details: { reason: presented === undefined ? "no admin token" : "wrong admin token" },
      });
    }
    (res.locals as { admin?: boolean }).admin = true;
    next();
  };
}

/**
 * For routes that take either credential (`auth: "apiKeyOrAdmin"`): with `X-Admin-Token` the
 * token must be right (403 `Admin token required` otherwise, as `requireAdminToken`); without
 * it and without API-key headers, an operator console session passes as admin too. The request
 * is then marked `res.locals.admin = true`; any other request goes on to the API-key check.
 */
export function adminIfPresented(ctx: AppContext) {
  const requireAdmin = requireAdminToken(ctx);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.get("x-admin-token") !== undefined) {
      await requireAdmin(req, res, next);
      return;
    }
    if (!hasApiKeyHeaders(req) && sessionTokenOf(req) !== undefined) {
      const session = await sessionOf(ctx, req, res);
      if (session?.kind === "operator") (res.locals as { admin?: boolean }).admin = true;
    }
    next();
  };
}
