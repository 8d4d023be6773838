import type { Request } from "express";
import type { AppContext } from "../context.js";

/**
 * The base URL clients reach this relayer at: `PUBLIC_BASE_URL` when set (behind a proxy the
 * request's own scheme and host are the proxy's upstream, not what clients use), else the
 * request's origin. Used by the OpenAPI `servers`, the Postman collection, the SDK bundles and
 * invitation links.
 */
export function publicBaseUrlOf(ctx: AppContext, req: Request): string {
  return ctx.config.publicBaseUrl ?? `${req.protocol}://${req.get("host") ?? "localhost"}`;
}
