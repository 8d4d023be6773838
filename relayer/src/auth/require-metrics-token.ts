import type { NextFunction, Request, Response } from "express";
import type { AppContext } from "../context.js";
import { UnauthorizedError } from "../errors.js";
import { adminTokenMatches } from "./require-admin-token.js";

/**
 * Guards `GET /metrics` (docs/api-decisions.md, "Operator safety"): the metrics name routes, queue depths and
 * process details an outsider has no business reading. Accepted: `Authorization: Bearer
 * <METRICS_TOKEN>` (what a Prometheus scrape job sends with `authorization.credentials`),
 * `Authorization: Bearer <ADMIN_TOKEN>`, or `X-Admin-Token: <ADMIN_TOKEN>`. Anything else is 401
 * `Unauthorized`, without saying which token was expected.
 */
export function requireMetricsToken(ctx: AppContext) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "")?.[1];
    const adminHeader = req.get("x-admin-token")?.trim();
    const { adminToken, metricsToken } = ctx.config;
    const accepted =
      (adminHeader !== undefined && adminTokenMatches(adminHeader, adminToken)) ||
      (bearer !== undefined &&
        (adminTokenMatches(bearer, adminToken) ||
          (metricsToken !== undefined && adminTokenMatches(bearer, metricsToken))));
    if (!accepted) {
      throw new UnauthorizedError({
        details: { reason: bearer === undefined ? "no metrics token" : "wrong metrics token" },
      });
    }
    next();
  };
}
