import type { Express } from "express";
import type { AnyRouteDefinition } from "../../../relayer/src/http/route-definition.js";
import { ROUTES } from "../../../relayer/src/http/routes/index.js";

/**
 * Every `defineRoute` route the app mounts: the route registry. `mountedRoutes` reads the live
 * router so a route added outside the registry is noticed too.
 */
export const API_ROUTES: readonly AnyRouteDefinition[] = ROUTES;

/** `"POST /api/v1/write/issue-asset"`. */
export function routeKey(route: { method: string; path: string }): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/**
 * `METHOD path` of every route the Express app serves (walking nested routers), excluding the
 * static console (`/console...`), which serves files, not API operations.
 */
export function mountedRoutes(app: Express): string[] {
  const keys = new Set<string>();
  const walk = (stack: Layer[] | undefined) => {
    for (const layer of stack ?? []) {
      if (layer.route !== undefined) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const p of paths) {
          if (p.startsWith("/console")) continue;
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== "_all") keys.add(`${method.toUpperCase()} ${p}`);
          }
        }
      } else if (layer.handle?.stack !== undefined) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return [...keys].sort();
}
