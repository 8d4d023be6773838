import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import postman from "postman-collection";
import { RwaClient, RwaOperatorClient } from "../../../relayer/sdk/index.js";
import { createApp } from "../../../relayer/src/http/app.js";
import type { OpenApiDocument } from "../../../relayer/src/http/openapi/build-openapi.js";
import {
  DOCUMENTED_ROUTES,
  routeKey,
} from "../../../relayer/src/http/openapi/documented-routes.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { documentedOperations, missing, mountedOperations } from "./route-coverage.js";

type Operation = Record<string, unknown> & {
  operationId: string;
  responses: Record<
    string,
    { content?: Record<string, { examples?: Record<string, { value: { error: string } }> }> }
  >;
};

function operation(doc: OpenApiDocument, method: string, path: string): Operation {
  const op = doc.paths[path]?.[method] as Operation | undefined;
  assert.ok(op, `${method} ${path} is documented`);
  return op;
}

function errorStrings(op: Operation, status: number): string[] {
  const examples = op.responses[String(status)]?.content?.["application/json"]?.examples ?? {};
  return Object.values(examples).map((e) => e.value.error);
}

describe("OpenAPI document, Postman collection", () => {
  let stack: TestStack;
  let doc: OpenApiDocument;
  before(async () => {
    stack = await startTestStack({ logLevel: "warn" });
    const res = await stack.api("GET", "/openapi.json");
    assert.equal(res.status, 200);
    doc = res.body as OpenApiDocument;
  });
  after(() => stack?.stop());

  it("GET /openapi.json is a valid OpenAPI 3.1 document (swagger-parser)", async () => {
    assert.equal(doc.openapi, "3.1.0");
    await SwaggerParser.validate(structuredClone(doc) as never);
    assert.equal(doc.servers[0]?.url, stack.baseUrl);
  });

  it("the validator rejects a broken document (the check above has teeth)", async () => {
    const broken = structuredClone(doc) as unknown as {
      paths: Record<string, Record<string, { parameters: Array<{ in: string }> }>>;
    };
    broken.paths["/api/v1/write/issue-asset"]!.post!.parameters[0]!.in = "body";
    await assert.rejects(SwaggerParser.validate(broken as never));
  });

  it("every route mounted in the app is documented, and every documented operation is mounted", () => {
    const mounted = mountedOperations(createApp(stack.ctx));
    const documented = documentedOperations(doc);
    assert.ok(mounted.size >= 35, `found ${mounted.size} mounted routes`);
    assert.deepEqual(missing(mounted, documented), [], "mounted but not in /openapi.json");
    assert.deepEqual(missing(documented, mounted), [], "documented but not mounted");
  });

  it("a route added to the app without a registry entry makes the comparison fail", () => {
    const app = createApp(stack.ctx);
    app.post("/api/v1/write/undocumented", (_req, res) => {
      res.json({});
    });
    assert.deepEqual(missing(mountedOperations(app), documentedOperations(doc)), [
      "POST /api/v1/write/undocumented",
    ]);
  });

  it("every registry route has stable metadata (operation id = SDK method name) and unique ids", () => {
    for (const route of DOCUMENTED_ROUTES) {
      assert.ok(route.docs, `docs for ${routeKey(route)}`);
    }
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => (op as Operation).operationId),
    );
    assert.equal(new Set(ids).size, ids.length);
  });

  it("the SDK has a method for every API operation (named by operationId): the operator's on RwaOperatorClient", () => {
    // Operator staff's (admin token): RwaOperatorClient's, never RwaClient's.
    const operatorOnly = [
      "registerOrganization",
      "listOrgs",
      "getOrg",
      "updateOrg",
      "listOrgKeys",
      "revokeOrgKey",
      "registerAssetTypeAsOperator",
      "rescueMarketplaceToken",
      "freezeAsset",
      "unfreezeAsset",
      "forceTransferAsset",
      "pauseMarket",
      "resumeMarket",
      "setAssetTypeRestricted",
      "listAllowlist",
      "addToAllowlist",
      "removeFromAllowlist",
      "listOperatorRequests",
      "getOperatorRequest",
    ];
    const operatorPrototype = RwaOperatorClient.prototype as unknown as Record<string, unknown>;
    assert.deepEqual(
      operatorOnly.filter((id) => typeof operatorPrototype[id] !== "function"),
      [],
    );
    // The audit log takes either credential: both clients read it.
    assert.equal(typeof operatorPrototype.listAuditLog, "function");
    // Not in the SDK: aliases, console sessions, documentation files.
    const notInSdk = new Set([
      ...operatorOnly,
      "revokeKeyById",
      "deleteWebhookById",
      "createConsoleSession",
      "getConsoleSession",
      "deleteConsoleSession",
      // A signed-in person's (console) routes: no key may call them.
      "setPolicy",
      "invitePerson",
      "listPeople",
      "changePersonRole",
      "removePerson",
      "acceptInvitation",
      "listOwnSessions",
      "endOwnSession",
      // Passkeys: a browser's (WebAuthn) and a signed-in person's.
      "passkeySignInOptions",
      "createConsoleSessionWithPasskey",
      "listOwnPasskeys",
      "passkeyRegistrationOptions",
      "registerPasskey",
      "removePasskey",
      "approveTransaction",
      "rejectTransaction",
      // An operator person's (console session) decisions: never the admin token's.
      "approveOperatorRequest",
      "rejectOperatorRequest",
      "getConsole",
      "getMetrics",
      "getOpenApiDocument",
      "getApiReference",
      "getApiReferenceAsset",
      "getPostmanCollection",
      "getSdkBundle",
      "getIpfsBlock",
    ]);
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => (op as Operation).operationId),
    );
    const prototype = RwaClient.prototype as unknown as Record<string, unknown>;
    const missingMethods = ids.filter(
      (id) => !notInSdk.has(id) && typeof prototype[id] !== "function",
    );
    assert.deepEqual(missingMethods, []);
    assert.deepEqual(
      operatorOnly.filter((id) => typeof prototype[id] === "function"),
      [],
      "an organization's client has no operator method",
    );
  });

  it("request bodies, parameters and responses come from the route's zod schemas", () => {
    const issue = operation(doc, "post", "/api/v1/write/issue-asset");
    const body = (
      issue.requestBody as { content: Record<string, { schema: Record<string, unknown> }> }
    ).content["application/json"]!.schema;
    assert.deepEqual(body.required, ["assetType", "name", "description"]);
    assert.equal(body.additionalProperties, false);
    const batch = operation(doc, "post", "/api/v1/write/batch-issue");
    const batchBody = (
      batch.requestBody as {
        content: Record<string, { schema: { properties: { assets: Record<string, unknown> } } }>;
      }
    ).content["application/json"]!.schema;
    assert.equal(batchBody.properties.assets.maxItems, 50);
    const params = operation(doc, "get", "/api/v1/assets").parameters as Array<{
      name: string;
      in: string;
    }>;
    assert.deepEqual(
      params.map((p) => `${p.in}:${p.name}`),
      ["query:limit", "query:cursor", "query:owner", "query:assetType"],
    );
    const headerNames = (issue.parameters as Array<{ name: string; in: string }>)
      .filter((p) => p.in === "header")
      .map((p) => p.name);
    assert.deepEqual(headerNames, ["Idempotency-Key", "Prefer"]);
    assert.ok(issue.responses["202"], "async 202 documented");
    const getAsset = operation(doc, "get", "/api/v1/assets/{id}");
    assert.equal(
      (getAsset.parameters as Array<{ name: string; required: boolean }>)[0]?.required,
      true,
    );
  });

  it("error responses carry the spec's error strings as examples", () => {
    const issue = operation(doc, "post", "/api/v1/write/issue-asset");
    assert.ok(errorStrings(issue, 400).includes("Missing required field: assetType"));
    assert.ok(errorStrings(issue, 400).includes("stakedAmount minimum is 0.1 COIN"));
    assert.deepEqual(errorStrings(issue, 401), ["Unauthorized"]);
    assert.deepEqual(errorStrings(issue, 403), ["Insufficient scope"]);
    assert.ok(errorStrings(issue, 429).includes("Rate limit exceeded"));
    assert.ok(errorStrings(issue, 500).includes("Transaction failed: Below min stake"));
    assert.ok(errorStrings(issue, 503).includes("RPC unavailable"));
    assert.ok(
      errorStrings(operation(doc, "post", "/api/v1/write/batch-issue"), 400).includes(
        "assets must be a non-empty array",
      ),
    );
    assert.ok(
      errorStrings(operation(doc, "post", "/api/v1/write/marketplace/buy"), 400).includes(
        "Listing not active",
      ),
    );
    assert.ok(
      errorStrings(operation(doc, "post", "/api/enterprise/register"), 403).includes(
        "Admin token required",
      ),
    );
    const retryAfter = (issue.responses["429"] as unknown as { headers: Record<string, unknown> })
      .headers["Retry-After"];
    assert.ok(retryAfter, "429 documents Retry-After");
  });

  it("security schemes and per-operation scopes", () => {
    const schemes = doc.components.securitySchemes as Record<string, Record<string, string>>;
    assert.deepEqual(schemes.ApiKeyAuth, {
      ...schemes.ApiKeyAuth,
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
    assert.equal(schemes.BearerAuth?.scheme, "bearer");
    assert.deepEqual(schemes.AdminToken, {
      ...schemes.AdminToken,
      type: "apiKey",
      in: "header",
      name: "X-Admin-Token",
    });
    const transfer = operation(doc, "post", "/api/v1/write/transfer");
    assert.deepEqual(transfer["x-required-scopes"], ["write:transfer"]);
    assert.match(String(transfer.description), /`write:transfer`/);
    assert.deepEqual(transfer.security, [{ ApiKeyAuth: [] }, { BearerAuth: [] }]);
    assert.deepEqual(operation(doc, "post", "/api/enterprise/register").security, [
      { AdminToken: [] },
    ]);
    assert.deepEqual(operation(doc, "get", "/api/v1/assets").security, []);
    assert.deepEqual(operation(doc, "get", "/api/enterprise/webhooks")["x-required-scopes"], [
      "webhooks",
      "read",
    ]);
  });

  it("webhook payloads are under the top-level webhooks key", () => {
    for (const event of [
      "asset.issued",
      "asset.transferred",
      "asset.listed",
      "asset.sold",
      "asset.delisted",
      "asset.redeemed",
    ]) {
      assert.ok(doc.webhooks[event]?.post, event);
    }
    const issued = doc.components.schemas.WebhookEvent_asset_issued as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
      required: string[];
    };
    assert.deepEqual(issued.required, [
      "event",
      "timestamp",
      "orgId",
      "txHash",
      "blockNumber",
      "data",
    ]);
    for (const field of ["tokenId", "assetType", "name", "wallet", "from", "to"]) {
      assert.ok(issued.properties.data?.properties?.[field], `asset.issued data.${field}`);
    }
    const sold = doc.components.schemas.WebhookEvent_asset_sold as {
      properties: { data: { properties: Record<string, unknown> } };
    };
    for (const field of ["buyer", "seller", "tokenId", "price"])
      assert.ok(sold.properties.data.properties[field]);
  });

  it("GET /postman.json loads as a Postman v2.1 collection with baseUrl/apiKey variables and X-API-Key auth", async () => {
    const res = await stack.api("GET", "/postman.json");
    assert.equal(res.status, 200);
    const json = res.body as {
      info: { schema: string };
      variable: Array<{ key: string; value: string }>;
      auth: unknown;
    };
    assert.match(json.info.schema, /collection\/v2\.1\.0\/collection\.json$/);
    const collection = new postman.Collection(json as never);
    const variables = collection.variables.toObject() as Record<string, string>;
    assert.equal(variables.baseUrl, stack.baseUrl);
    assert.ok("apiKey" in variables);
    assert.deepEqual(collection.auth?.parameters().toObject(), {
      key: "X-API-Key",
      value: "{{apiKey}}",
      in: "header",
    });
    const requests: Array<{
      method: string;
      path: string;
      auth: string | undefined;
      host: string;
    }> = [];
    let flowSteps = 0;
    collection.forEachItem((item) => {
      // The chained "Main flow" folder repeats some operations; the reference folders hold each once.
      if ((item.parent() as { name?: string } | undefined)?.name === "Main flow (run first)") {
        flowSteps += 1;
        return;
      }
      requests.push({
        method: item.request.method,
        path: `/${item.request.url.path?.join("/") ?? ""}`,
        auth: item.getAuth()?.type,
        host: item.request.url.getHost(),
      });
    });
    assert.equal(requests.length, documentedOperations(doc).size);
    assert.ok(flowSteps >= 9, `main flow has ${flowSteps} steps`);
    const issue = requests.find((r) => r.path === "/api/v1/write/issue-asset");
    assert.deepEqual(issue, {
      method: "POST",
      path: "/api/v1/write/issue-asset",
      auth: "apikey",
      host: "{{baseUrl}}",
    });
    assert.equal(requests.find((r) => r.path === "/api/v1/assets")?.auth, "noauth");
    // The second answer (from the converted collection kept in memory) is the same collection.
    const again = await stack.api("GET", "/postman.json");
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, res.body);
  });
});
