import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { z } from "zod";
import * as consoleConstants from "../../console/app/lib/constants.js";
import type * as Console from "../../console/app/lib/types.js";
import { LISTING_STATES } from "../../relayer/src/domain/listing.js";
import type {
  OrgOverview,
  RegisteredOrganization,
  SessionInfo,
} from "../../relayer/src/domain/index.js";
import { ROUTES } from "../../relayer/src/http/routes/index.js";
import { WEBHOOK_EVENT_KINDS } from "../../relayer/src/domain/webhook-event.js";
import type { apiKeySummary } from "../../relayer/src/domain/api-key.js";
import type { webhookSummary } from "../../relayer/src/domain/webhook.js";
import type { createKeyResponse } from "../../relayer/src/http/routes/enterprise-keys.js";
import type { registerResponse } from "../../relayer/src/http/routes/enterprise-register.js";
import type { walletResponse } from "../../relayer/src/http/routes/enterprise-wallet.js";
import type { createWebhookResponse } from "../../relayer/src/http/routes/enterprise-webhooks.js";
import type { orgOverviewSchema } from "../../relayer/src/http/routes/enterprise-orgs.js";
import type { sessionResponse } from "../../relayer/src/http/routes/session.js";
import { scopeSchema } from "../../relayer/src/http/routes/schemas.js";
import type { deliveryLogResponse } from "../../relayer/src/http/routes/webhook-deliveries.js";
import type { AssetRecord, ListingRecord } from "../../relayer/sdk/index.js";

/**
 * The console cannot drift from the server. Its asset, listing, transaction, webhook-event,
 * organization and session types are the domain's own (relayer/src/domain); every other type it
 * declares must accept what the relayer's response schema says the server sends. The domain's
 * organization and session types are what the relayer's services return, so they and the route's
 * response schemas must describe the same bodies, in both directions. These are type-level checks: a renamed or
 * retyped field breaks `npm run typecheck` (tsc) here. The runtime tests below cover the shared
 * constants.
 */

/** Compiles only when `T` is `true`. */
type Assert<T extends true> = T;
/** `true` when every value of `Server` is a valid `Client` (the client reads a subset). */
type Reads<Server, Client> = [Server] extends [Client] ? true : false;
type Out<S extends z.ZodType> = z.output<S>;
/** `true` when the two types accept exactly the same values. */
type Same<A, B> = [Reads<A, B>, Reads<B, A>] extends [true, true] ? true : false;

export type ConsoleTypesMatchTheServer = [
  Assert<Reads<Out<typeof sessionResponse>, Console.SessionInfo>>,
  Assert<Reads<Out<typeof walletResponse>, Console.WalletBalance>>,
  Assert<Reads<Out<typeof apiKeySummary>, Console.ApiKeySummary>>,
  Assert<Reads<Out<typeof createKeyResponse>, Console.CreatedApiKey>>,
  Assert<Reads<Out<typeof webhookSummary>, Console.WebhookSummary>>,
  Assert<Reads<Out<typeof createWebhookResponse>, Console.CreatedWebhook>>,
  Assert<Reads<Out<typeof deliveryLogResponse>, Console.DeliveryLog>>,
  Assert<Reads<Out<typeof orgOverviewSchema>, Console.OrgOverview>>,
  Assert<Reads<Out<typeof registerResponse>, Console.RegisteredOrg>>,
  // The organization and session bodies: the domain's types and the route schemas agree.
  Assert<Same<Out<typeof sessionResponse>, SessionInfo>>,
  Assert<Same<Out<typeof orgOverviewSchema>, OrgOverview>>,
  Assert<Same<Out<typeof registerResponse>, RegisteredOrganization>>,
  // The domain types are shared, not copied: the console's and the SDK's are the same.
  Assert<Reads<Console.AssetRecord, AssetRecord>>,
  Assert<Reads<AssetRecord, Console.AssetRecord>>,
  Assert<Reads<Console.ListingRecord, ListingRecord>>,
  Assert<Reads<ListingRecord, Console.ListingRecord>>,
];

/**
 * The API paths the console's source names (`"/api/..."` and template literals), with each
 * `${...}` after a `/` read as a path parameter and one after anything else as a query string.
 */
function consolePaths(dir = path.resolve("console", "app")): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...consolePaths(file));
    else if (/\.tsx?$/.test(entry.name)) {
      for (const match of readFileSync(file, "utf8").matchAll(/["`](\/api\/[^"`]*)["`]/g)) {
        out.push(match[1]!.replace(/\/\$\{[^}]*\}/g, "/:param").replace(/\$\{.*\}$/, ""));
      }
    }
  }
  return [...new Set(out)].sort();
}

/** Whether a concrete path (with `:param` segments) is served by a route template. */
function served(concrete: string): boolean {
  const segments = concrete.split("/");
  return ROUTES.some((route) => {
    const template = route.path.split("/");
    return (
      template.length === segments.length &&
      template.every((t, i) => t === segments[i] || (t.startsWith(":") && segments[i] !== ""))
    );
  });
}

describe("console vocabulary", () => {
  it("calls only paths of the route registry", () => {
    const paths = consolePaths();
    assert.ok(paths.length >= 10, `found ${paths.length} paths`);
    assert.deepEqual(
      paths.filter((p) => !served(p)),
      [],
    );
  });

  it("offers exactly the server's webhook event kinds", () => {
    assert.deepEqual([...consoleConstants.WEBHOOK_EVENTS], [...WEBHOOK_EVENT_KINDS]);
  });

  it("offers exactly the scopes the server accepts", () => {
    assert.deepEqual([...consoleConstants.SCOPES], [...scopeSchema.options]);
  });

  it("filters listings by exactly the server's listing states", () => {
    assert.deepEqual([...consoleConstants.LISTING_STATES], [...LISTING_STATES]);
  });
});
