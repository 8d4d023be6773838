import type { OpenApiDocument } from "./build-openapi.js";
import type { JsonObject } from "./examples.js";
import { FLOW_VARIABLES, mainFlowFolder } from "./postman-flow.js";

/** A Postman v2.1 collection (plain JSON). */
export type PostmanCollection = JsonObject & {
  info: JsonObject;
  item: JsonObject[];
  variable: Array<{ key: string; value: string; type?: string; description?: string }>;
  auth?: JsonObject;
};

const API_KEY_PLACEHOLDER = "rwa_live_<64 hex chars>";

function apiKeyAuth(header: string, variable: string): JsonObject {
  return {
    type: "apikey",
    apikey: [
      { key: "key", value: header, type: "string" },
      { key: "value", value: `{{${variable}}}`, type: "string" },
      { key: "in", value: "header", type: "string" },
    ],
  };
}

/** `"POST /api/v1/write/issue-asset"` → the operation's `x-auth` (`apiKey`, `admin`, `none`). */
function authByRequest(doc: OpenApiDocument): Map<string, string> {
  const map = new Map<string, string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      // Postman writes path parameters as `:name`.
      const postmanPath = path.replace(/\{([^}]+)\}/g, ":$1");
      map.set(
        `${method.toUpperCase()} ${postmanPath}`,
        typeof operation["x-auth"] === "string" ? operation["x-auth"] : "apiKey",
      );
    }
  }
  return map;
}

function requestKey(request: JsonObject): string | undefined {
  const url = request.url as { path?: unknown } | string | undefined;
  if (typeof url !== "object" || !Array.isArray(url.path)) return undefined;
  return `${String(request.method).toUpperCase()} /${url.path.map(String).join("/")}`;
}

/** Walks the folders and applies each request's auth: API key, admin token or none. */
function applyAuth(items: JsonObject[], auth: Map<string, string>): void {
  for (const item of items) {
    if (Array.isArray(item.item)) {
      applyAuth(item.item as JsonObject[], auth);
      continue;
    }
    const request = item.request as JsonObject | undefined;
    if (request === undefined) continue;
    const kind = auth.get(requestKey(request) ?? "");
    // A person's routes take the console's session cookie, which Postman gets by signing in.
    if (kind === "none" || kind === "person") request.auth = { type: "noauth" };
    else if (kind === "admin") request.auth = apiKeyAuth("X-Admin-Token", "adminToken");
    else delete request.auth; // inherit the collection's X-API-Key auth
    // The converter also writes the security header into the request; the auth block sends it.
    if (Array.isArray(request.header)) {
      request.header = (request.header as JsonObject[]).filter(
        (h) => !/^(x-api-key|x-admin-token|authorization)$/i.test(String(h.key)),
      );
    }
  }
}

/**
 * Converts the OpenAPI document to a Postman v2.1 collection (openapi-to-postmanv2, folders by
 * tag, bodies and parameters from the document's examples), with the collection variables
 * `baseUrl`, `apiKey` and `adminToken`, `X-API-Key` auth on the collection, the admin token on
 * `register` and no auth on public reads; first comes the chained "Main flow" folder
 * (`postman-flow.ts`), which also sets `apiKey` for the reference folders after it.
 */
export async function toPostmanCollection(
  doc: OpenApiDocument,
  baseUrl: string,
): Promise<PostmanCollection> {
  // Loaded on the first request for the collection: with its dependencies (lodash, faker,
  // ajv...) it is about 700 of the 1,100 modules the relayer would otherwise load at start.
  const { convertV2 } = await import("openapi-to-postmanv2");
  const input = structuredClone(doc);
  input.servers = [{ url: "{{baseUrl}}" }];
  const collection = await new Promise<PostmanCollection>((resolve, reject) => {
    convertV2(
      { type: "json", data: input },
      {
        folderStrategy: "Tags",
        parametersResolution: "Example",
        includeAuthInfoInExample: false,
        enableOptionalParameters: false,
      },
      (error, result) => {
        if (error !== null && error !== undefined) {
          reject(new Error(`OpenAPI to Postman conversion failed: ${error.message}`));
          return;
        }
        const output = result?.output?.[0];
        if (result?.result !== true || output === undefined) {
          reject(new Error(`OpenAPI to Postman conversion failed: ${String(result?.reason)}`));
          return;
        }
        resolve(output.data as PostmanCollection);
      },
    );
  });
  applyAuth(collection.item, authByRequest(doc));
  collection.item.unshift(mainFlowFolder(doc));
  collection.auth = apiKeyAuth("X-API-Key", "apiKey");
  collection.variable = [
    { key: "baseUrl", value: baseUrl, type: "string", description: "The relayer's base URL" },
    {
      key: "apiKey",
      value: API_KEY_PLACEHOLDER,
      type: "string",
      description: "An organization's API key (sent as X-API-Key)",
    },
    {
      key: "adminToken",
      value: "ent_admin_<64 hex chars>",
      type: "string",
      description: "Operator staff token for POST /api/enterprise/register",
    },
    ...FLOW_VARIABLES.map((key) => ({
      key,
      value: "",
      type: "string",
      description: "Set by the main flow",
    })),
  ];
  return collection;
}

/** Sets `baseUrl` on a copy of a cached collection (the conversion itself runs once). */
export function withBaseUrl(collection: PostmanCollection, baseUrl: string): PostmanCollection {
  return {
    ...collection,
    variable: collection.variable.map((v) => (v.key === "baseUrl" ? { ...v, value: baseUrl } : v)),
  };
}
