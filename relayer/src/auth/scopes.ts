import { WRITE_SCOPES } from "../domain/scope.js";

/**
 * The concrete scopes a list grants: `write:all` is replaced by the three write scopes.
 *
 * @example
 * expandScopes(["read", "write:all"]) // Set { "read", "write:issue", "write:transfer", "write:marketplace" }
 */
export function expandScopes(scopes: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const scope of scopes) {
    if (scope === "write:all") for (const write of WRITE_SCOPES) out.add(write);
    else out.add(scope);
  }
  return out;
}

/** Whether every scope granted by `requested` is also granted by `held` (both expanded). */
export function isScopeSubset(requested: readonly string[], held: readonly string[]): boolean {
  const have = expandScopes(held);
  for (const scope of expandScopes(requested)) if (!have.has(scope)) return false;
  return true;
}

/** Whether two scope lists grant exactly the same concrete scopes. */
export function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return isScopeSubset(a, b) && isScopeSubset(b, a);
}
