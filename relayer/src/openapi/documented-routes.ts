import type { AnyRouteDefinition } from "../http/route-definition.js";
import { ALL_ROUTES } from "../http/routes/index.js";
import { READ_ROUTES } from "../http/routes/read.js";
import { WEBHOOK_DELIVERY_ROUTES } from "../http/routes/webhook-deliveries.js";
import { WRITE_API_ROUTES } from "../http/routes/write.js";

/**
 * Every `defineRoute` route the app mounts, once each, in a stable order: the registry's
 * `ALL_ROUTES` (system and management) plus the groups `app.ts` mounts on their own lines.
 * A new group mounted in `app.ts` must be added here too, or the OpenAPI coverage test fails.
 */
export const DOCUMENTED_ROUTES: readonly AnyRouteDefinition[] = [
  ...new Set<AnyRouteDefinition>([
    ...ALL_ROUTES,
    ...READ_ROUTES,
    ...WRITE_API_ROUTES,
    ...WEBHOOK_DELIVERY_ROUTES,
  ]),
];

/** `"GET /api/v1/assets/:id"`: the key of a route in the metadata tables. */
export function routeKey(route: Pick<AnyRouteDefinition, "method" | "path">): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

/** Express path (`/a/:id`) to OpenAPI path template (`/a/{id}`). */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}
