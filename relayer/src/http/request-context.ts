import { randomUUID } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import type { Metrics } from "../metrics.js";
import type { AdmissionArrival } from "../writes/admission.js";

const INCOMING_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Per-request state kept on `res.locals` by the middleware of this package.
 * `auth` is set by `requireApiKey`; `routeTemplate` by the route mounter.
 */
export interface RequestLocals {
  requestId: string;
  routeTemplate?: string;
  /** A write's place in the accept path, taken on arrival (`admitWrite` in route-definition.ts). */
  arrival?: AdmissionArrival;
}

/** The request id assigned by `requestContext` (a UUID, or a well-formed incoming `X-Request-Id`). */
export function requestIdOf(res: Response): string {
  return (res.locals as Partial<RequestLocals>).requestId ?? "unknown";
}

/** The route template for logs and metrics: never the raw path (ids would explode label sets). */
function routeTemplateOf(req: Request, res: Response): string {
  const explicit = (res.locals as Partial<RequestLocals>).routeTemplate;
  if (explicit !== undefined) return explicit;
  const route = req.route as { path?: unknown } | undefined;
  if (route !== undefined && typeof route.path === "string") return `${req.baseUrl}${route.path}`;
  return "unmatched";
}

/**
 * Assigns a request id (echoed in `X-Request-Id`), and when the response finishes logs one line
 * and records the HTTP metrics. Only method, route, path (without query), status, duration and
 * the caller's org/key ids are logged: never headers, bodies or query strings, so no credential
 * can reach the logs from here.
 */
export function requestContext(logger: Logger, metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get("x-request-id");
    const requestId =
      incoming !== undefined && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    (res.locals as RequestLocals).requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplateOf(req, res);
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      const auth = (res.locals as { auth?: { orgId: string; keyId: string } }).auth;
      const line = {
        requestId,
        method: req.method,
        route,
        path: req.originalUrl.split("?")[0],
        status: res.statusCode,
        durationMs: Math.round(seconds * 1000),
        orgId: auth?.orgId,
        keyId: auth?.keyId,
      };
      if (res.statusCode >= 500) logger.warn(line, "request failed");
      else logger.info(line, "request");
    });
    next();
  };
}
