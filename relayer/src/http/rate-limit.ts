import type { NextFunction, Request, Response } from "express";
import type { AppContext } from "../context.js";
import { principalOf } from "../auth/require-api-key.js";
import { consumeRequest } from "../limits/rate-limiter.js";

/**
 * Middleware: counts the request against the caller's key and organization limits (429
 * `Rate limit exceeded` with `Retry-After` when over). Use after `requireApiKey`; a batch
 * request counts as one. Admin-token requests are not limited.
 */
export function rateLimit(ctx: AppContext) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    await consumeRequest(ctx, principalOf(res));
    next();
  };
}
