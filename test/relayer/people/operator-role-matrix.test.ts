import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { format } from "prettier";
import { OPERATOR_ROLES, type OperatorRole } from "../../../relayer/src/domain/person.js";
import { inviteOperator } from "../../../relayer/src/people/operator-people.js";
import { SYSTEM_ORIGIN } from "../../../relayer/src/audit/audit-writer.js";
import type { AnyRouteDefinition } from "../../../relayer/src/http/route-definition.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { API_ROUTES, routeKey } from "../../reliability/support/routes.js";
import { accept, email, signIn, type SignedIn } from "./people-helpers.js";

/**
 * The operator role-by-route matrix (docs/people.md "Operator staff"): every route operator staff
 * can reach (the admin token's, those that take either a key or the admin token, and the person
 * routes open to an operator role) × a signed-in operator person of each role, with the status
 * each cell answers, stored in `operator-role-matrix.json` (`UPDATE_ROLE_MATRIX=1` regenerates
 * it; review the diff). Each cell must keep the rules too: `support` reads only, `compliance`
 * also the compliance controls and operator requests, `operator-admin` everything; a refused
 * cell is 403, an allowed one neither 401 nor 403, no cell 5xx. Probes stop at validation:
 * strict bodies get an unknown field (400), ids do not exist (404).
 */

const MATRIX_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "operator-role-matrix.json",
);

const ROUTES = API_ROUTES.filter(
  (r) =>
    r.auth === "admin" ||
    r.auth === "apiKeyOrAdmin" ||
    (r.auth === "person" && (r.roles ?? []).some((role) => OPERATOR_ROLES.includes(role as never))),
);

const COMPLIANCE =
  /^\/api\/enterprise\/(assets\/|marketplace\/(pause|resume)$|asset-types\/|allowlist$|operator-requests(\/|$))/;

/** What the rules say: may `role` pass authorization on `route`? */
function allowed(route: AnyRouteDefinition, role: OperatorRole): boolean {
  if (route.auth === "person") return (route.roles ?? []).includes(role);
  if (route.method === "get" || role === "operator-admin") return true;
  return role === "compliance" && COMPLIANCE.test(route.path);
}

function probe(route: AnyRouteDefinition): { path: string; body?: unknown } {
  const urlPath = route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => `${name}_doesnotexist`);
  if (route.request.body === undefined) return { path: urlPath };
  return { path: urlPath, body: { matrixProbe: true } };
}

describe("operator role-by-route matrix (PostgreSQL)", { timeout: 180_000 }, () => {
  let stack: TestStack;
  const people = new Map<OperatorRole, SignedIn>();

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    for (const role of OPERATOR_ROLES) {
      const address = email(role);
      const invited = await inviteOperator(
        stack.database,
        { email: address, role },
        SYSTEM_ORIGIN,
        stack.baseUrl,
      );
      people.set(role, await signIn(stack, await accept(stack, invited.invitation.url, address)));
    }
  });
  after(() => stack?.stop());

  test("every cell answers the stored status and keeps the rules (UPDATE_ROLE_MATRIX=1 regenerates)", async () => {
    const update = process.env.UPDATE_ROLE_MATRIX === "1";
    const stored = update
      ? undefined
      : (JSON.parse(readFileSync(MATRIX_FILE, "utf8")) as Record<string, Record<string, number>>);
    const generated: Record<string, Record<string, number>> = {};
    const mismatches: string[] = [];
    for (const route of ROUTES) {
      const key = routeKey(route);
      generated[key] = {};
      for (const role of OPERATOR_ROLES) {
        const { path: urlPath, body } = probe(route);
        const res = await people
          .get(role)!
          .api(route.method.toUpperCase(), urlPath, body === undefined ? {} : { body });
        generated[key][role] = res.status;
        if (res.status >= 500) mismatches.push(`${key} [${role}]: ${res.status} ${res.text}`);
        const ok = allowed(route, role);
        if (ok && (res.status === 401 || res.status === 403))
          mismatches.push(`${key} [${role}]: ${res.status}, rule says allowed (${res.text})`);
        if (!ok && res.status !== 403)
          mismatches.push(`${key} [${role}]: ${res.status}, rule says 403`);
        const want = stored?.[key]?.[role];
        if (stored !== undefined && want !== res.status)
          mismatches.push(`${key} [${role}]: ${res.status}, matrix says ${want ?? "(no row)"}`);
      }
    }
    if (update)
      writeFileSync(MATRIX_FILE, await format(JSON.stringify(generated), { parser: "json" }));
    assert.deepEqual(mismatches, []);
  });
});
