import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { format } from "prettier";
import { ORG_ROLES, type OrgRole } from "../../../relayer/src/domain/person.js";
import { SCOPES } from "../../../relayer/src/domain/scope.js";
import type { AnyRouteDefinition } from "../../../relayer/src/http/route-definition.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { API_ROUTES, routeKey } from "../../reliability/support/routes.js";
import {
  accept,
  addPerson,
  email,
  registerWithOwner,
  signIn,
  type SignedIn,
} from "./people-helpers.js";

/**
 * The role-by-route matrix (docs/people.md "Roles"): every route a key or a person can call ×
 * a signed-in person of each role, with the status each cell answers, stored in
 * `role-matrix.json` (`UPDATE_ROLE_MATRIX=1` regenerates it; review the diff). Each cell must
 * also keep the rules: a refused cell is 403, an allowed one neither 401 nor 403, and no cell
 * 5xx. Probes are cheap past authorization: strict bodies get an unknown field (400), ids do not
 * exist (404). The organization holds every scope, so only the role narrows.
 */

const MATRIX_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "role-matrix.json");

/** The routes a person's session can reach at all: keys' routes and people's. */
const ROUTES = API_ROUTES.filter(
  (r) => r.auth === "apiKey" || r.auth === "apiKeyOrAdmin" || r.auth === "person",
);

/** What the rules say: may `role` pass authorization on `route`? */
function allowed(route: AnyRouteDefinition, role: OrgRole): boolean {
  if (route.auth === "person") return (route.roles ?? []).includes(role);
  const safe = route.method === "get";
  const byRole =
    safe ||
    role === "owner" ||
    role === "admin" ||
    (role === "developer" && /^\/api\/enterprise\/(keys|webhooks)(\/|$)/.test(route.path));
  if (!byRole) return false;
  const scopes =
    role === "owner" || role === "admin"
      ? SCOPES
      : role === "developer"
        ? SCOPES.filter((s) => s !== "admin:types")
        : ["read"];
  const granted = new Set<string>(
    scopes.includes("write:all")
      ? [...scopes, "write:issue", "write:transfer", "write:marketplace"]
      : scopes,
  );
  return route.scopes.length === 0 || route.scopes.some((s) => granted.has(s));
}

function probe(route: AnyRouteDefinition): { path: string; body?: unknown } {
  const urlPath = route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) =>
    name === "id" && route.path.startsWith("/api/v1/transactions")
      ? "tx_doesnotexist"
      : `${name}_doesnotexist`,
  );
  if (route.request.body === undefined) return { path: urlPath };
  return { path: urlPath, body: { matrixProbe: true } };
}

describe("role-by-route matrix (PostgreSQL)", { timeout: 180_000 }, () => {
  let stack: TestStack;
  const people = new Map<OrgRole, SignedIn>();

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    const ownerEmail = email("owner");
    const org = await registerWithOwner(stack, ownerEmail, [...SCOPES]);
    const owner = await signIn(stack, await accept(stack, org.invitationUrl, ownerEmail));
    people.set("owner", owner);
    for (const role of ORG_ROLES.filter((r) => r !== "owner"))
      people.set(role, await addPerson(stack, owner, role));
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
      for (const role of ORG_ROLES) {
        const person = people.get(role)!;
        const { path: urlPath, body } = probe(route);
        const res = await person.api(
          route.method.toUpperCase(),
          urlPath,
          body === undefined ? {} : { body },
        );
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
