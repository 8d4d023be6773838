import type { AnyRouteDefinition } from "../route-definition.js";
import { ROUTES } from "../routes/index.js";

/** The routes the document describes: the route registry (every `defineRoute` route mounted). */
export const DOCUMENTED_ROUTES: readonly AnyRouteDefinition[] = ROUTES;

/** `"GET /api/v1/assets/:id"`: the key of a route in the metadata tables. */
export function routeKey(route: Pick<AnyRouteDefinition, "method" | "path">): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

/** Express path (`/a/:id`) to OpenAPI path template (`/a/{id}`). */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}
