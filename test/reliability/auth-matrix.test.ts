import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { format } from "prettier";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { expandScopes } from "../../relayer/src/auth/scopes.js";
import { SCOPES } from "../../relayer/src/domain/scope.js";
import { createApp } from "../../relayer/src/http/app.js";
import type { AnyRouteDefinition } from "../../relayer/src/http/route-definition.js";
import { startTestStack, type TestOrg, type TestStack } from "../support/stack.js";
import { API_ROUTES, mountedRoutes, routeKey } from "./support/routes.js";

/**
 * The authorization matrix: every route × every credential (no key, a malformed key, a revoked
 * key, the admin token where the key goes, the admin token, and a key of each scope for the
 * route's own organization and for another one), with the status each cell must answer. The
 * table lives in `auth-matrix.json`; `UPDATE_AUTH_MATRIX=1` regenerates it from the running
 * server (checking the rules below while doing so). A route without rows fails the test.
 *
 * Each probe is valid for authentication but cheap after it: write bodies are rejected by
 * validation (400), ids of the caller's own org that do not exist answer 404, and "other org"
 * probes name a real resource (key, webhook, transaction) of another organization.
 */

const MATRIX_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "auth-matrix.json");
const CREDENTIALS = ["none", "malformed", "revoked", "adminTokenAsKey", "adminToken"] as const;
type Credential = (typeof CREDENTIALS)[number];
type Cell = Credential | `${(typeof SCOPES)[number]}@${"own" | "other"}`;

interface MatrixRow {
  auth: string;
  scopes: readonly string[];
  cells: Record<string, number>;
}
interface Matrix {
  note: string;
  columns: string[];
  routes: Record<string, MatrixRow>;
}

const COLUMNS: Cell[] = [
  ...CREDENTIALS,
  ...SCOPES.flatMap((scope) => [`${scope}@own` as const, `${scope}@other` as const]),
];

describe("authorization matrix", { timeout: 120_000 }, () => {
  let stack: TestStack;
  /** The org whose resources "other" probes name, and the org making every call. */
  let owner: TestOrg;
  let caller: TestOrg;
  const keys = new Map<string, string>();
  let revokedKey: string;
  const ownerIds = { keyId: "", webhookId: "", transactionId: "" };
  const callerIds = { webhookId: "" };

  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    const allScopes = [...SCOPES];
    [owner, caller] = await Promise.all([
      stack.registerOrg({ scopes: allScopes }),
      stack.registerOrg({ scopes: allScopes }),
    ]);
    for (const scope of SCOPES) {
      const res = await caller.api("POST", "/api/enterprise/keys", {
        body: { scopes: [scope], label: scope },
      });
      assert.equal(res.status, 200, res.text);
      keys.set(scope, String(res.body.apiKey));
    }
    const revoked = await caller.api("POST", "/api/enterprise/keys", {
      body: { scopes: ["read"], label: "revoked" },
    });
    revokedKey = String(revoked.body.apiKey);
    assert.equal(
      (await caller.api("DELETE", `/api/enterprise/keys/${String(revoked.body.keyId)}`)).status,
      200,
    );
    ownerIds.keyId = owner.keyId;
    const hookOf = async (org: TestOrg) => {
      const res = await org.api("POST", "/api/enterprise/webhooks", {
        body: { url: "http://127.0.0.1:9/hook", events: ["asset.issued"] },
      });
      assert.equal(res.status, 200, res.text);
      return String(res.body.webhookId);
    };
    ownerIds.webhookId = await hookOf(owner);
    callerIds.webhookId = await hookOf(caller);
    // A failed write of the owner, written directly (no engine run here).
    ownerIds.transactionId = "tx_matrixprobe";
    await stack.database.pool.query(
      `INSERT INTO transactions (id, org_id, wallet_id, kind, request_hash, from_address, state)
       SELECT $1, w.org_id, w.id, 'issue-asset', 'probe', w.address, 'failed'
         FROM wallets w WHERE w.org_id = $2`,
      [ownerIds.transactionId, owner.orgId],
    );
  });

  after(() => stack?.stop());

  /**
   * The matrix's rows: every `defineRoute` route, plus any other route the app serves (docs,
   * OpenAPI, SDK bundles) as a public GET, and `/metrics` as an operator's.
   */
  function matrixRoutes(): AnyRouteDefinition[] {
    const declared = new Set(API_ROUTES.map(routeKey));
    const extra = mountedRoutes(createApp(stack.ctx))
      .filter((key) => !declared.has(key))
      .map((key): AnyRouteDefinition => {
        const [method, routePath] = key.split(" ");
        return {
          method: method!.toLowerCase() as AnyRouteDefinition["method"],
          path: routePath!,
          summary: "",
          // `/metrics` takes the admin token (or METRICS_TOKEN) outside the route registry.
          auth: key === "GET /metrics" ? "admin" : "none",
          scopes: [],
          request: {},
          responses: {},
          handler: () => Promise.resolve(undefined),
        };
      });
    return [...API_ROUTES, ...extra];
  }

  /** Valid bodies of the routes whose path names a webhook (none changes anything: 404 first). */
  const VALID_WEBHOOK_BODIES: Record<string, unknown> = {
    "PATCH /api/enterprise/webhooks/:webhookId": { events: ["asset.issued"] },
    "POST /api/enterprise/webhooks/:webhookId/rotate-secret": {},
    "POST /api/enterprise/webhooks/:webhookId/replay": {
      from: "2026-01-01T00:00:00Z",
      to: "2026-01-02T00:00:00Z",
    },
    // Names a transaction: a valid body, so the probe reaches the ownership check (404).
    "POST /api/v1/transactions/:id/speed-up": {},
  };

  /** The probe request of `route` for `cell` (path params and body). */
  function probe(route: AnyRouteDefinition, other: boolean): { path: string; body?: unknown } {
    const ids: Record<string, string> = {
      keyId: other ? ownerIds.keyId : "key_doesnotexist",
      // Own probes never name a real webhook except to read it (a DELETE would remove it).
      webhookId: other
        ? ownerIds.webhookId
        : route.method === "get"
          ? callerIds.webhookId
          : "wh_doesnotexist",
      deliveryId: "dlv_doesnotexist",
      // Operator routes name a real org (the caller's), so the admin token reaches past the 404.
      orgId: caller.orgId,
      id: route.path.startsWith("/api/v1/transactions")
        ? other
          ? ownerIds.transactionId
          : "tx_doesnotexist"
        : "999999999",
    };
    const urlPath = route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => ids[name] ?? "x");
    if (route.request.body === undefined) return { path: urlPath };
    if (routeKey(route) === "DELETE /api/enterprise/keys")
      return { path: urlPath, body: { keyId: ids.keyId } };
    if (routeKey(route) === "DELETE /api/enterprise/webhooks")
      return { path: urlPath, body: { webhookId: other ? ownerIds.webhookId : "wh_doesnotexist" } };
    // A path naming a webhook and a body: a valid body, so the probe reaches the ownership check.
    const valid = VALID_WEBHOOK_BODIES[routeKey(route)];
    if (valid !== undefined) return { path: urlPath, body: valid };
    // An unknown field: every body schema is strict, so this is a 400 once auth has passed.
    return { path: urlPath, body: { matrixProbe: true } };
  }

  function headersFor(cell: Cell): Record<string, string> {
    switch (cell) {
      case "none":
        return {};
      case "malformed":
        return { "x-api-key": "rwa_live_not-a-key", "x-admin-token": "ent_admin_garbage" };
      case "revoked":
        return { "x-api-key": revokedKey };
      case "adminTokenAsKey":
        return { "x-api-key": stack.adminToken };
      case "adminToken":
        return { "x-admin-token": stack.adminToken };
      default:
        return { "x-api-key": keys.get(cell.split("@")[0]!)! };
    }
  }

  async function observe(route: AnyRouteDefinition, cell: Cell): Promise<number> {
    const { path: urlPath, body } = probe(route, cell.endsWith("@other"));
    const res = await stack.api(route.method.toUpperCase(), urlPath, {
      headers: headersFor(cell),
      ...(body === undefined ? {} : { body }),
    });
    assert.ok(res.status < 500, `${routeKey(route)} [${cell}] answered ${res.status}: ${res.text}`);
    if (res.status >= 400)
      assert.equal(typeof res.body?.error, "string", `${routeKey(route)} [${cell}]: ${res.text}`);
    return res.status;
  }

  /** The rule a cell must satisfy, for generation: an exact status or "allowed" (not 401/403). */
  function rule(route: AnyRouteDefinition, cell: Cell): number | "allowed" {
    // The console's session read is cookie-authenticated: no cookie here, so 401 everywhere.
    if (routeKey(route) === "GET /api/console/session") return 401;
    // `/metrics` answers 401 (not the API's 403 `Admin token required`) so scrapers see an auth failure.
    if (routeKey(route) === "GET /metrics") return cell === "adminToken" ? "allowed" : 401;
    if (route.auth === "none") return "allowed";
    // A signed-in person's routes: no credentials is 401, any key or the admin token 403.
    if (route.auth === "person") return cell === "none" ? 401 : 403;
    if (route.auth === "admin") return cell === "adminToken" ? "allowed" : 403;
    // Either credential: a presented admin token is checked as one (a wrong one is 403).
    if (route.auth === "apiKeyOrAdmin" && cell === "adminToken") return "allowed";
    if (route.auth === "apiKeyOrAdmin" && cell === "malformed") return 403;
    if (CREDENTIALS.includes(cell as Credential)) return 401;
    const [scope] = cell.split("@");
    const granted = expandScopes([scope!]);
    const ok = route.scopes.length === 0 || route.scopes.some((s) => granted.has(s));
    if (!ok) return 403;
    // Another org's key, webhook or transaction is not found, whatever the scope.
    if (cell.endsWith("@other") && /:(keyId|webhookId)|\/transactions\//.test(route.path))
      return 404;
    if (
      cell.endsWith("@other") &&
      (routeKey(route) === "DELETE /api/enterprise/keys" ||
        routeKey(route) === "DELETE /api/enterprise/webhooks")
    )
      return 404;
    return "allowed";
  }

  test("every route the app serves has rows in the stored matrix", () => {
    const matrix = JSON.parse(readFileSync(MATRIX_FILE, "utf8")) as Matrix;
    const served = mountedRoutes(createApp(stack.ctx));
    const missing = served.filter((key) => matrix.routes[key] === undefined);
    assert.deepEqual(missing, [], "routes without rows (run with UPDATE_AUTH_MATRIX=1)");
    for (const route of API_ROUTES) {
      assert.ok(matrix.routes[routeKey(route)] !== undefined, `${routeKey(route)} has rows`);
    }
  });

  test("every cell answers the stored status (or regenerates it with UPDATE_AUTH_MATRIX=1)", async () => {
    const update = process.env.UPDATE_AUTH_MATRIX === "1";
    const stored = update ? undefined : (JSON.parse(readFileSync(MATRIX_FILE, "utf8")) as Matrix);
    const generated: Matrix = {
      note: "Generated by UPDATE_AUTH_MATRIX=1 node --import tsx --test test/reliability/auth-matrix.test.ts; review the diff.",
      columns: COLUMNS,
      routes: {},
    };
    const mismatches: string[] = [];
    for (const route of matrixRoutes()) {
      const key = routeKey(route);
      const cells: Record<string, number> = {};
      for (const cell of COLUMNS) {
        const status = await observe(route, cell);
        cells[cell] = status;
        const expected = rule(route, cell);
        if (expected === "allowed") {
          if (status === 401 || status === 403)
            mismatches.push(`${key} [${cell}]: ${status}, expected not 401/403`);
        } else if (status !== expected) {
          mismatches.push(`${key} [${cell}]: ${status}, rule says ${expected}`);
        }
        const want = stored?.routes[key]?.cells[cell];
        if (stored !== undefined && want !== status)
          mismatches.push(`${key} [${cell}]: ${status}, matrix says ${want ?? "(no row)"}`);
      }
      generated.routes[key] = { auth: route.auth, scopes: route.scopes, cells };
    }
    if (update) {
      // In the repository's own format, so `npm run lint` (prettier --check) stays clean.
      const text = await format(JSON.stringify(generated), { parser: "json" });
      writeFileSync(MATRIX_FILE, text);
    }
    assert.deepEqual(mismatches, []);
  });
});
