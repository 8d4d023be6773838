import type { OpenApiDocument } from "./build-openapi.js";
import type { JsonObject } from "./examples.js";

/** One step of the main flow: a request built from the operation's own example body. */
interface FlowStep {
  name: string;
  method: "GET" | "POST";
  path: string;
  /** Collection variable holding the key the step sends, or `adminToken`. */
  auth: "sellerApiKey" | "buyerApiKey" | "adminToken" | "none";
  /** Fields replacing the example body's (variables as `{{name}}`); `null` removes a field. */
  body?: Record<string, unknown>;
  /** Test script lines run after the response (pm.* API). */
  tests: string[];
}

const ok = (what: string) => [
  `pm.test(${JSON.stringify(`${what} answers 200`)}, () => pm.response.to.have.status(200));`,
  "const body = pm.response.json();",
];

/**
 * A read that may run before the indexer has caught up with the write before it: retried every
 * 500 ms (up to 40 times) while it answers 404.
 */
const retryWhile404 = [
  "const tries = Number(pm.collectionVariables.get('readTries') || 0);",
  "if (pm.response.code === 404 && tries < 40) {",
  "  pm.collectionVariables.set('readTries', String(tries + 1));",
  "  pm.execution.setNextRequest(pm.info.requestName);",
  "  setTimeout(() => {}, 500);",
  "  return;",
  "}",
  "pm.collectionVariables.set('readTries', '0');",
];

function steps(doc: OpenApiDocument): FlowStep[] {
  const has = (path: string) => doc.paths[path]?.post !== undefined;
  const flow: FlowStep[] = [
    {
      name: "1. Register the seller organization",
      method: "POST",
      path: "/api/enterprise/register",
      auth: "adminToken",
      body: { orgName: "Harbour Estates Ltd", scopes: null },
      tests: [
        ...ok("register"),
        "pm.test('returns a live API key and a wallet', () => {",
        "  pm.expect(body.apiKey).to.match(/^rwa_live_[0-9a-f]{64}$/);",
        "  pm.expect(body.walletAddress).to.match(/^0x[0-9a-fA-F]{40}$/);",
        "});",
        "pm.collectionVariables.set('sellerApiKey', body.apiKey);",
        "pm.collectionVariables.set('sellerWallet', body.walletAddress);",
        "pm.collectionVariables.set('apiKey', body.apiKey);",
      ],
    },
    {
      name: "2. Register the buyer organization",
      method: "POST",
      path: "/api/enterprise/register",
      auth: "adminToken",
      body: { orgName: "Northwind Capital", scopes: null },
      tests: [
        ...ok("register"),
        "pm.collectionVariables.set('buyerApiKey', body.apiKey);",
        "pm.collectionVariables.set('buyerWallet', body.walletAddress);",
      ],
    },
    {
      name: "3. Issue an asset",
      method: "POST",
      path: "/api/v1/write/issue-asset",
      auth: "sellerApiKey",
      body: { ipfsHash: null, password: null },
      tests: [
        ...ok("issue-asset"),
        "pm.test('mints to the seller wallet', () => {",
        "  pm.expect(body.success).to.eql(true);",
        "  pm.expect(body.tokenId).to.match(/^\\d+$/);",
        "  pm.expect(body.owner).to.eql(pm.collectionVariables.get('sellerWallet'));",
        "});",
        "pm.collectionVariables.set('tokenId', body.tokenId);",
      ],
    },
    {
      name: "4. Read the asset",
      method: "GET",
      path: "/api/v1/assets/{{tokenId}}",
      auth: "sellerApiKey",
      tests: [
        ...retryWhile404,
        ...ok("the asset"),
        "pm.test('shows the issued metadata', () => {",
        "  pm.expect(body.tokenId).to.eql(pm.collectionVariables.get('tokenId'));",
        "  pm.expect(body.assetType).to.eql('Real Estate');",
        "  pm.expect(body.name).to.eql('Harbour View Apartment 12B');",
        "});",
      ],
    },
    {
      name: "5. List the asset for sale",
      method: "POST",
      path: "/api/v1/write/marketplace/list",
      auth: "sellerApiKey",
      body: { tokenId: "{{tokenId}}" },
      tests: [
        ...ok("list"),
        "pm.test('returns the listing', () => pm.expect(body.listingId).to.match(/^\\d+$/));",
        "pm.collectionVariables.set('listingId', body.listingId);",
      ],
    },
    {
      name: "6. Buy it from the second organization",
      method: "POST",
      path: "/api/v1/write/marketplace/buy",
      auth: "buyerApiKey",
      body: { listingId: "{{listingId}}" },
      tests: [
        ...ok("buy"),
        "pm.test('the buyer gets the token', () => {",
        "  pm.expect(body.tokenId).to.eql(pm.collectionVariables.get('tokenId'));",
        "  pm.expect(body.buyer).to.eql(pm.collectionVariables.get('buyerWallet'));",
        "  pm.expect(body.pricePaid).to.eql('2.5');",
        "});",
      ],
    },
    {
      name: "7. Issue a second asset",
      method: "POST",
      path: "/api/v1/write/issue-asset",
      auth: "sellerApiKey",
      body: { name: "Harbour View Apartment 14C", ipfsHash: null, password: null },
      tests: [...ok("issue-asset"), "pm.collectionVariables.set('secondTokenId', body.tokenId);"],
    },
    {
      name: "8. List the second asset",
      method: "POST",
      path: "/api/v1/write/marketplace/list",
      auth: "sellerApiKey",
      body: { tokenId: "{{secondTokenId}}" },
      tests: [...ok("list"), "pm.collectionVariables.set('secondListingId', body.listingId);"],
    },
    {
      name: "9. Delist it",
      method: "POST",
      path: "/api/v1/write/marketplace/delist",
      auth: "sellerApiKey",
      body: { listingId: "{{secondListingId}}" },
      tests: [
        ...ok("delist"),
        "pm.test('the token comes back', () => {",
        "  pm.expect(body.success).to.eql(true);",
        "  pm.expect(body.tokenId).to.eql(pm.collectionVariables.get('secondTokenId'));",
        "});",
      ],
    },
  ];
  if (has("/api/v1/write/redeem-asset")) {
    flow.push({
      name: "10. Redeem the bought asset",
      method: "POST",
      path: "/api/v1/write/redeem-asset",
      auth: "buyerApiKey",
      body: { tokenId: "{{tokenId}}", password: null },
      tests: [
        ...ok("redeem-asset"),
        "pm.test('burns the token', () => {",
        "  pm.expect(body.success).to.eql(true);",
        "  pm.expect(body.tokenId).to.eql(pm.collectionVariables.get('tokenId'));",
        "});",
      ],
    });
  }
  if (doc.paths["/api/enterprise/audit-log"]?.get !== undefined) {
    flow.push({
      name: `${flow.length + 1}. Read the seller's audit log`,
      method: "GET",
      path: "/api/enterprise/audit-log",
      auth: "sellerApiKey",
      tests: [
        ...ok("audit-log"),
        "pm.test('records the registration, hash-chained', () => {",
        "  pm.expect(body.data.map((row) => row.action)).to.include('org.registered');",
        "  body.data.forEach((row) => pm.expect(row.hash).to.match(/^[0-9a-f]{64}$/));",
        "});",
      ],
    });
  }
  return flow;
}

function exampleBody(doc: OpenApiDocument, path: string): JsonObject {
  const content = (doc.paths[path]?.post?.requestBody as JsonObject | undefined)?.content as
    | Record<string, JsonObject>
    | undefined;
  const example = content?.["application/json"]?.example;
  if (example === undefined || example === null || typeof example !== "object") {
    throw new Error(`the OpenAPI document has no request example for POST ${path}`);
  }
  return structuredClone(example as JsonObject);
}

function authOf(step: FlowStep): JsonObject {
  if (step.auth === "none") return { type: "noauth" };
  const header = step.auth === "adminToken" ? "X-Admin-Token" : "X-API-Key";
  return {
    type: "apikey",
    apikey: [
      { key: "key", value: header, type: "string" },
      { key: "value", value: `{{${step.auth}}}`, type: "string" },
      { key: "in", value: "header", type: "string" },
    ],
  };
}

/**
 * The "Main flow" folder: register two organizations, issue, read, list, buy from the second
 * organization, issue and list again, delist, redeem when the API has it, and read the seller's
 * audit log. Each body is the
 * operation's example from the OpenAPI document with the ids the earlier steps stored in
 * collection variables; each step asserts its answer, so `newman run` of the collection checks
 * the whole flow end to end against a fresh relayer.
 */
export function mainFlowFolder(doc: OpenApiDocument): JsonObject {
  return {
    name: "Main flow (run first)",
    description:
      "Runs in order and chains its ids through collection variables. Set `baseUrl` and `adminToken` first.",
    item: steps(doc).map((step) => {
      const request: JsonObject = {
        method: step.method,
        header: [{ key: "Accept", value: "application/json" }],
        url: {
          raw: `{{baseUrl}}${step.path}`,
          host: ["{{baseUrl}}"],
          path: step.path.split("/").filter((part) => part !== ""),
        },
        auth: authOf(step),
      };
      if (step.method === "POST") {
        const body = exampleBody(doc, step.path);
        for (const [key, value] of Object.entries(step.body ?? {})) {
          if (value === null) delete body[key];
          else body[key] = value;
        }
        (request.header as JsonObject[]).push({ key: "Content-Type", value: "application/json" });
        request.body = {
          mode: "raw",
          raw: JSON.stringify(body, null, 2),
          options: { raw: { language: "json" } },
        };
      }
      return {
        name: step.name,
        request,
        event: [{ listen: "test", script: { type: "text/javascript", exec: step.tests } }],
      };
    }),
  };
}

/** Collection variables the main flow sets (empty until it runs). */
export const FLOW_VARIABLES = [
  "sellerApiKey",
  "sellerWallet",
  "buyerApiKey",
  "buyerWallet",
  "tokenId",
  "listingId",
  "secondTokenId",
  "secondListingId",
  "readTries",
] as const;
