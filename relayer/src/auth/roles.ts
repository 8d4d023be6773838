import type { OperatorRole, OrgRole, PersonRole } from "../domain/person.js";

/**
 * What a person's role lets them do through the routes an API key can call (docs/people.md
 * "Roles"). A person's console session acts with the organization's scopes narrowed by role
 * (`roleScopes`), and each unsafe request is also checked against the role
 * (`roleAllowsRequest`); the routes only people may use (`auth: "person"`) name their roles
 * themselves. The role-by-route matrix test (test/relayer/people/role-matrix.test.ts) pins both.
 */

/**
 * The scopes a role acts with, within the organization's: `owner` and `admin` all of them,
 * `developer` all but `admin:types` (its key creations are checked against these, so it never
 * mints an admin key), `approver` and `viewer` `read`.
 */
export function roleScopes(role: OrgRole, orgScopes: readonly string[]): string[] {
  switch (role) {
    case "owner":
    case "admin":
      return [...orgScopes];
    case "developer":
      return orgScopes.filter((scope) => scope !== "admin:types");
    default:
      return orgScopes.includes("read") ? ["read"] : [];
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The management paths a developer may change: keys and webhooks. */
const DEVELOPER_PATHS = /^\/api\/enterprise\/(keys|webhooks)(\/|$)/;

/**
 * Whether a person with `role` may make this request to an API-key route (`path`: the route's
 * template): reads for every role; `owner` and `admin` anything; `developer` keys and webhooks;
 * `approver` and `viewer` nothing else.
 */
export function roleAllowsRequest(role: PersonRole, method: string, path: string): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  if (role === "owner" || role === "admin") return true;
  if (role === "developer") return DEVELOPER_PATHS.test(path);
  return false;
}

/**
 * The operator routes compliance staff may change: the compliance controls (freeze, forced
 * transfer, pause, restricted types, the allowlist) and the operator requests they decide.
 */
const COMPLIANCE_PATHS =
  /^\/api\/enterprise\/(assets\/|marketplace\/(pause|resume)$|asset-types\/|allowlist$|operator-requests(\/|$))/;

/**
 * Whether an operator person with `role` may make this request to an operator route (`auth:
 * "admin"` or `apiKeyOrAdmin`; `path`: the route's template), docs/people.md "Operator staff":
 * reads for every role (`support` is read-only); `operator-admin` anything; `compliance` the
 * compliance controls and operator requests.
 */
export function operatorRoleAllowsRequest(
  role: OperatorRole,
  method: string,
  path: string,
): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  if (role === "operator-admin") return true;
  if (role === "compliance") return COMPLIANCE_PATHS.test(path);
  return false;
}
