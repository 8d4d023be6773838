import type { NextFunction, Request, Response } from "express";
import { ForbiddenError } from "../errors.js";
import { principalOf } from "./require-api-key.js";
import type { Scope } from "../domain/scope.js";
import { expandScopes } from "./scopes.js";

/**
 * Middleware: the caller's key must grant at least one of `anyOf` (after `write:all`
 * expansion), else 403 `Insufficient scope`. Use after `requireApiKey`.
 *
 * @example
 * requireScope("webhooks", "read") // GET /api/enterprise/webhooks
 */
export function requireScope(...anyOf: Scope[]) {
  const needed = [...expandScopes(anyOf)];
  return (_req: Request, res: Response, next: NextFunction): void => {
    const { grantedScopes } = principalOf(res);
    if (!needed.some((scope) => grantedScopes.has(scope))) {
      throw new ForbiddenError("Insufficient scope", { details: { needed: anyOf } });
    }
    next();
  };
}
