import express, { type Express } from "express";
import { requireMetricsToken } from "../auth/require-metrics-token.js";
import { consoleRouter } from "./serve-console.js";
import type { AppContext } from "../context.js";
import { errorHandler, notFound } from "./error-handler.js";
import { jsonBody } from "./json-body.js";
import { requestContext } from "./request-context.js";
import { mountRoutes, type AnyRouteDefinition } from "./route-definition.js";
import { createDocsRouter } from "./routes/docs.js";
import { ROUTES } from "./routes/index.js";
import { healthRoute } from "./routes/health.js";
import { ipfsGatewayRouter } from "./routes/ipfs-gateway.js";

/** Options of `createApp`. */
export interface CreateAppOptions {
  /**
   * Routes mounted after the API's own, through the same middleware (request context, body
   * parser, auth, error handler). For benchmarks only (`bench/ceiling-routes.ts`): the production
   * start (`start-relayer.ts`) never passes any, so nothing extra is served there.
   */
  extraRoutes?: readonly AnyRouteDefinition[];
}

/**
 * Builds the relayer's Express application (no listening; the caller does `app.listen`).
 *
 * Order: request id + access log + metrics → JSON body (415/413/400) → routes → 404 → error
 * handler. API routes are declared in the route registry (`ROUTES`, http/routes/index.ts), which
 * also feeds the OpenAPI document; plain routers go in the "Routes" block below. Exported building blocks for
 * other routers: `requireApiKey`, `requireScope`, `requireAdminToken` (relayer/src/auth/),
 * `rateLimit`, `defineRoute`/`mountRoutes`, `parseOrThrow`.
 *
 * @example
 * const app = createApp(ctx);
 * const server = app.listen(ctx.config.port, ctx.config.host);
 */
export function createApp(ctx: AppContext, options: CreateAppOptions = {}): Express {
  return assemble(ctx, (app) => {
    app.use(jsonBody(ctx.config.bodyLimitBytes));

    // Routes: the route registry, then the plain routers (documentation, the console's files).
    app.use(mountRoutes(ctx, ROUTES));
    if (options.extraRoutes !== undefined) app.use(mountRoutes(ctx, options.extraRoutes));
    app.use(createDocsRouter(ctx));
    app.use(ipfsGatewayRouter(ctx)); // GET /ipfs/<cid>: metadata documents by CID
    app.use(consoleRouter()); // static export under /console (503 page when not built)
  });
}

/**
 * The HTTP side of a worker process (RELAYER_ROLE=worker): `/healthz` for the orchestrator and
 * `/metrics` (admin or metrics token); everything else answers 404, so a balancer pointed at a
 * worker by mistake gets a clear refusal rather than a partial API.
 */
export function createWorkerApp(ctx: AppContext): Express {
  return assemble(ctx, (app) => app.use(mountRoutes(ctx, [healthRoute])));
}

/** What every app has: request id + access log + metrics, `/metrics`, then `mount`'s routes, 404, errors. */
function assemble(ctx: AppContext, mount: (app: Express) => void): Express {
  const { metrics } = ctx;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  // Who the client is behind a load balancer (TRUST_PROXY, docs/configuration.md): `req.ip`.
  app.set("trust proxy", ctx.config.trustProxy ?? false);

  app.use(requestContext(ctx.logger, metrics));
  app.get("/metrics", requireMetricsToken(ctx), async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  mount(app);

  app.use(notFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
