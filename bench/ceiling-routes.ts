import { z } from "zod";
import { defineRoute, type AnyRouteDefinition } from "../relayer/src/http/route-definition.js";

/** The constant body of the ceiling routes: about the size of a small JSON answer. */
const CONSTANT = Object.freeze({ ok: true, service: "rwa-relayer", note: "constant" });
const constantBody = z.object({ ok: z.boolean(), service: z.string(), note: z.string() });

/** Path of the unauthenticated constant-JSON route. */
export const CEILING_PATH = "/bench/ceiling";
/** Path of the same constant answer behind API-key auth and the rate limiter. */
export const CEILING_AUTHENTICATED_PATH = "/bench/ceiling-authenticated";

/**
 * Benchmark-only routes that answer a constant JSON through the relayer's own Express stack
 * (request id, access log, metrics, body parser, route mounter, error handler): the framework's
 * ceiling the read benchmark compares each read against. Mounted with `createApp`'s
 * `extraRoutes` by the benchmark only; the production start never serves them.
 */
export const CEILING_ROUTES: readonly AnyRouteDefinition[] = [
  defineRoute({
    method: "get",
    path: CEILING_PATH,
    summary: "Constant JSON (benchmark ceiling)",
    auth: "none",
    scopes: [],
    request: {},
    responses: { 200: constantBody },
    handler: () => Promise.resolve(CONSTANT),
  }),
  defineRoute({
    method: "get",
    path: CEILING_AUTHENTICATED_PATH,
    summary: "Constant JSON behind API-key auth and rate limits (benchmark ceiling)",
    auth: "apiKey",
    scopes: ["read"],
    request: {},
    responses: { 200: constantBody },
    handler: () => Promise.resolve(CONSTANT),
  }),
];
