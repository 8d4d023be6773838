import type { Express } from "express";

/** `"GET /api/v1/assets/{id}"` for every route an Express app answers (router stack walk). */
export function mountedOperations(app: Express): Set<string> {
  const out = new Set<string>();
  interface Layer {
    route?: { path: unknown; methods: Record<string, boolean> };
    handle?: { stack?: Layer[] };
  }
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route !== undefined) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths as string[]) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== "_all")
              out.add(`${method.toUpperCase()} ${path.replace(/:(\w+)/g, "{$1}")}`);
          }
        }
      } else if (Array.isArray(layer.handle?.stack)) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return out;
}

/** `"GET /api/v1/assets/{id}"` for every operation of an OpenAPI document's `paths`. */
export function documentedOperations(doc: {
  paths: Record<string, Record<string, unknown>>;
}): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

/** Elements of `a` missing from `b`, sorted. */
export function missing(a: Set<string>, b: Set<string>): string[] {
  return [...a].filter((x) => !b.has(x)).sort();
}
