import { createHash, timingSafeEqual } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { AppContext } from "../context.js";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import { sessionOperator, setOperatorPerson } from "./require-person.js";
import { operatorRoleAllowsRequest } from "./roles.js";
import { hasApiKeyHeaders, sessionOf, sessionTokenOf } from "./session-auth.js";
import type { ConsoleSession } from "./session-store.js";

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
 * Admits an operator session to an operator route: one opened with the admin token passes; an
 * operator person's passes when their role allows the request (`operatorRoleAllowsRequest`:
 * `support` reads only, `compliance` the compliance controls), else 403 `Not allowed for role
 * <role>`, and is remembered (`operatorPersonOf`) so the audit log names them.
 */
function admitOperatorSession(req: Request, res: Response, session: ConsoleSession): void {
  const operator = sessionOperator(session);
  if (operator !== undefined) {
    const route = (res.locals as { routeTemplate?: string }).routeTemplate ?? req.path;
    if (!operatorRoleAllowsRequest(operator.role, req.method, route))
      throw new ForbiddenError(`Not allowed for role ${operator.role}`, {
        details: { role: operator.role, route },
      });
    setOperatorPerson(res, operator);
  }
  (res.locals as { admin?: boolean }).admin = true;
}

/**
 * Middleware for operator-staff endpoints: `X-Admin-Token` must equal `config.adminToken`.
 * A missing, malformed or wrong token is 403 `Admin token required` (the spec's string for
 * "the endpoint needs X-Admin-Token"); a wrong token is not distinguished from a missing one.
 * Sets `res.locals.admin = true`.
 *
 * Without the header, an operator console session cookie is accepted instead (CSRF-checked on
 * unsafe methods, see `session-auth.ts`): the admin token's, or an operator person's whose role
 * allows the request (docs/people.md "Operator staff").
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
        admitOperatorSession(req, res, session);
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
      if (session?.kind === "operator") admitOperatorSession(req, res, session);
    }
    next();
  };
}
