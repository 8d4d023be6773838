import { z } from "zod";
import { expandScopes } from "../../auth/scopes.js";
import type { AnyRouteDefinition } from "../route-definition.js";
import { successStatus } from "../route-definition.js";
import { errorBody } from "../routes/schemas.js";
import { writeAccepted } from "../../domain/transaction.js";
import { addExamples, type JsonObject } from "./examples.js";
import {
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENT_SCHEMAS,
  WEBHOOK_TEST_SCHEMA,
  WEBHOOK_DISABLED_SCHEMA,
} from "../../domain/webhook-event.js";
import { WRITE_LIMITS } from "../../writes/limits.js";
import { DOCUMENTED_ROUTES, openApiPath } from "./documented-routes.js";
import { EXTRA_OPERATIONS, type ExtraOperation } from "./extra-operations.js";
import { TAGS, type OperationMetadata } from "./operation-metadata.js";

/** The generated OpenAPI 3.1 document. */
export interface OpenApiDocument extends JsonObject {
  openapi: "3.1.0";
  info: JsonObject & { title: string; version: string };
  servers: Array<{ url: string; description?: string }>;
  paths: Record<string, Record<string, JsonObject>>;
  webhooks: Record<string, Record<string, JsonObject>>;
  components: JsonObject & { schemas: Record<string, JsonObject> };
}

/** Options of `buildOpenApiDocument`. */
export interface BuildOpenApiOptions {
  /** Routes to document (default: every route the app mounts). */
  routes?: readonly AnyRouteDefinition[];
  /** Plain Express routes to document too (default: `/metrics` and the documentation routes). */
  extraOperations?: readonly ExtraOperation[];
  /** Coin symbol in error examples (`stakedAmount minimum is 0.1 COIN`). */
  coinSymbol?: string;
  /** `servers[0].url` (default `/`: the server that serves the document). */
  serverUrl?: string;
  version?: string;
}

/** Generic `error` strings by status (docs/sdk.md "Errors and retries"). */
const GENERIC_ERRORS: Readonly<Record<number, readonly string[]>> = {
  400: [
    "Missing required field: <field>",
    "Invalid field: <field> (<reason>)",
    "Unknown field: <field>",
  ],
  401: ["Unauthorized"],
  403: ["Insufficient scope"],
  404: ["Not found"],
  409: ["Idempotency-Key reused with a different request body"],
  413: ["Request body too large"],
  415: ["Content-Type must be application/json"],
  429: ["Rate limit exceeded", "Too many queued write transactions for this organization"],
  500: ["Transaction failed: <reason>", "Internal error"],
  503: ["RPC unavailable", "Database unavailable"],
};

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: "OK",
  202: "Accepted: the write is queued or still pending; poll the transaction",
  400: "Invalid request",
  401: "Missing or invalid API key",
  403: "Forbidden",
  404: "Not found",
  409: "Conflict",
  413: "Body too large",
  415: "Body is not application/json",
  429: "Rate limited; retry after `Retry-After` seconds",
  500: "Transaction failed on chain, or an internal error",
  503: "A dependency (chain node, database) is unavailable; retry with backoff",
};

const SECURITY_SCHEMES = {
  ApiKeyAuth: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "`rwa_live_<64 hex>`. Keys belong on servers: never ship one to a browser.",
  },
  BearerAuth: {
    type: "http",
    scheme: "bearer",
    description: "The same API key as `Authorization: Bearer rwa_live_...`.",
  },
  AdminToken: {
    type: "apiKey",
    in: "header",
    name: "X-Admin-Token",
    description: "`ent_admin_<64 hex>`: operator staff only (`POST /api/enterprise/register`).",
  },
  ConsoleSession: {
    type: "apiKey",
    in: "cookie",
    name: "rwa_session",
    description:
      "A signed-in person's console session (`POST /api/console/session`); unsafe requests " +
      "also send the session's `X-CSRF-Token`.",
  },
} as const;

const HEADER = (description: string, schema: JsonObject = { type: "string" }) => ({
  description,
  schema,
});

/** Shared component schemas, recognised by identity among a route's responses. */
const SHARED_SCHEMAS = new Map<z.ZodType, string>([
  [errorBody, "Error"],
  [writeAccepted, "WriteAccepted"],
]);

/** JSON Schema 2020-12 of a zod schema (the dialect of OpenAPI 3.1), without `$schema`. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const out = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as JsonObject;
  delete out.$schema;
  return out;
}

function schemaOrRef(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const shared = SHARED_SCHEMAS.get(schema);
  return shared === undefined
    ? jsonSchemaOf(schema, io)
    : { $ref: `#/components/schemas/${shared}` };
}

function titleCase(words: string): string {
  return words.replace(/(^|[-_/\s]+)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}

/** The metadata of a route, or one derived from its method and path. */
export function metadataOf(
  route: Pick<AnyRouteDefinition, "method" | "path" | "docs">,
): OperationMetadata {
  if (route.docs !== undefined) return route.docs;
  const words = route.path.replace(/^\/api\/(v1|enterprise)\//, "").replace(/[:{}]/g, "");
  const id = titleCase(words.replace(/\//g, " "));
  return { operationId: `${route.method}${id}`, tag: "System" };
}

function errorExamples(
  status: number,
  specific: readonly string[],
  coinSymbol: string,
): JsonObject {
  const strings = [...new Set([...specific, ...(GENERIC_ERRORS[status] ?? [])])];
  const examples: JsonObject = {};
  strings.forEach((text, index) => {
    const value = text.replace(/ COIN\b/g, ` ${coinSymbol}`);
    examples[`e${index + 1}`] = { summary: value, value: { error: value } };
  });
  return examples;
}

function parametersOf(
  schema: z.ZodType | undefined,
  location: "path" | "query",
  docs: JsonObject[],
): void {
  if (schema === undefined) return;
  const json = jsonSchemaOf(schema, "input");
  const properties = (json.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((json.required ?? []) as string[]);
  for (const [name, property] of Object.entries(properties)) {
    const { description, ...rest } = property;
    docs.push({
      name,
      in: location,
      required: location === "path" || required.has(name),
      ...(typeof description === "string" ? { description } : {}),
      schema: rest,
    });
  }
}

function scopeText(scopes: readonly string[]): string {
  if (scopes.length === 0) return "any scope";
  const names = scopes.map((s) => `\`${s}\``).join(" or ");
  const viaAll = scopes.some((s) => s !== "write:all" && expandScopes(["write:all"]).has(s));
  return `scope ${names}${viaAll ? " (or `write:all`)" : ""}`;
}

function authText(route: AnyRouteDefinition): string {
  if (route.auth === "none") return "**Authentication:** none.";
  if (route.auth === "admin") return "**Authentication:** `X-Admin-Token` (operator staff).";
  if (route.auth === "person")
    return `**Authentication:** a signed-in person's console session (cookie and \`X-CSRF-Token\`) with role ${(route.roles ?? []).map((r) => `\`${r}\``).join(" or ")}; an API key or the admin token gets 403.`;
  if (route.auth === "apiKeyOrAdmin")
    return `**Authentication:** \`X-API-Key\` (or \`Authorization: Bearer\`) with ${scopeText(route.scopes)}, or \`X-Admin-Token\` (operator staff).`;
  return `**Authentication:** \`X-API-Key\` (or \`Authorization: Bearer\`) with ${scopeText(route.scopes)}.`;
}

function routeOperation(route: AnyRouteDefinition, coinSymbol: string): JsonObject {
  const meta = metadataOf(route);
  const isWrite = route.path.startsWith("/api/v1/write/");
  const parameters: JsonObject[] = [];
  parametersOf(route.request.params, "path", parameters);
  parametersOf(route.request.query, "query", parameters);
  if (isWrite) {
    parameters.push(
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "Makes retries safe: the same key with the same body returns the first call's result " +
          "(kept 24 h); with another body, 409. The SDK sends one on every write.",
        schema: { type: "string", minLength: 1, maxLength: WRITE_LIMITS.idempotencyKeyMax },
      },
      {
        name: "Prefer",
        in: "header",
        required: false,
        description: "`respond-async`: answer 202 with the transaction id at once.",
        schema: { type: "string", enum: ["respond-async"] },
      },
    );
  }

  const statuses = new Map<number, z.ZodType>();
  for (const [code, schema] of Object.entries(route.responses)) statuses.set(Number(code), schema);
  // Failures added by the middleware in front of every route of this kind (route-definition.ts,
  // json-body.ts), whether or not the route lists them.
  const implicit: number[] = [];
  if (route.request.body !== undefined) implicit.push(400, 413, 415);
  if (route.request.params !== undefined || route.request.query !== undefined) implicit.push(400);
  const byKey = route.auth === "apiKey" || route.auth === "apiKeyOrAdmin";
  if (byKey) implicit.push(401, 429, 503);
  if (byKey && route.scopes.length > 0) implicit.push(403);
  if (route.auth === "admin" || route.auth === "apiKeyOrAdmin") implicit.push(403, 503);
  if (route.auth === "person") implicit.push(401, 403);
  for (const code of implicit) if (!statuses.has(code)) statuses.set(code, errorBody);

  const responses: JsonObject = {};
  const success = successStatus(route);
  for (const code of [...statuses.keys()].sort((a, b) => a - b)) {
    const schema = statuses.get(code)!;
    const headers: JsonObject = { "X-Request-Id": HEADER("Request id (also in the logs)") };
    if (code === 429 || code === 503) {
      headers["Retry-After"] = HEADER("Seconds to wait before retrying", { type: "integer" });
    }
    if (code === 202 && isWrite) {
      headers.Location = HEADER("`/api/v1/transactions/{transactionId}`");
    }
    const media: JsonObject = { schema: schemaOrRef(schema, "output") };
    if (code >= 400) {
      const specific = [...(meta.errors?.[code] ?? [])];
      if (code === 403 && (route.auth === "admin" || route.auth === "apiKeyOrAdmin"))
        specific.unshift("Admin token required");
      media.examples = errorExamples(code, specific, coinSymbol);
    }
    responses[String(code)] = {
      description: code === success ? (STATUS_TEXT[200] ?? "OK") : (STATUS_TEXT[code] ?? "Error"),
      headers,
      content: { "application/json": media },
    };
  }

  const description = [route.summary + ".", authText(route), meta.description]
    .filter((part) => part !== undefined && part !== "")
    .join("\n\n");
  const operation: JsonObject = {
    operationId: meta.operationId,
    summary: route.summary,
    description,
    tags: [meta.tag],
    "x-auth": route.auth,
    "x-required-scopes": [...route.scopes],
    security:
      route.auth === "none"
        ? []
        : route.auth === "person"
          ? [{ ConsoleSession: [] }]
          : route.auth === "admin"
            ? [{ AdminToken: [] }]
            : route.auth === "apiKeyOrAdmin"
              ? [{ ApiKeyAuth: [] }, { BearerAuth: [] }, { AdminToken: [] }]
              : [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
    responses,
  };
  if (parameters.length > 0) operation.parameters = parameters;
  if (route.request.body !== undefined) {
    operation.requestBody = {
      required: true,
      content: { "application/json": { schema: jsonSchemaOf(route.request.body, "input") } },
    };
  }
  return operation;
}

function extraOperation(extra: ExtraOperation): JsonObject {
  const parameters = Object.entries(extra.pathParams ?? {}).map(([name, values]) => ({
    name,
    in: "path",
    required: true,
    schema: values === undefined ? { type: "string" } : { type: "string", enum: [...values] },
  }));
  const responses: JsonObject = {
    [String(extra.status ?? 200)]: {
      description: extra.status === 301 ? "Moved permanently (see `Location`)" : "OK",
      content: { [extra.contentType]: extra.schema === undefined ? {} : { schema: extra.schema } },
    },
  };
  if (extra.notFound === true) {
    responses[404] = {
      description: STATUS_TEXT[404],
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          examples: errorExamples(404, [], "COIN"),
        },
      },
    };
  }
  return {
    operationId: extra.operationId,
    summary: extra.summary,
    description: [extra.summary + ".", "**Authentication:** none.", extra.description]
      .filter((part) => part !== undefined)
      .join("\n\n"),
    tags: [extra.tag],
    "x-auth": "none",
    "x-required-scopes": [],
    security: [],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
  };
}

function webhookOperations(): Record<string, Record<string, JsonObject>> {
  const signatureHeaders = [
    [
      "X-Service-Signature",
      "`sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the secret",
    ],
    ["webhook-id", "Event id (`evt_...`), the same on every retry: deduplicate by it"],
    ["webhook-timestamp", "Unix seconds of this attempt"],
    [
      "webhook-signature",
      "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`",
    ],
    ["x-service-event", "The event kind"],
    ["x-service-delivery", "Delivery id (`dlv_...`)"],
  ].map(([name, description]) => ({
    name,
    in: "header",
    required: true,
    description,
    schema: { type: "string" },
  }));
  const out: Record<string, Record<string, JsonObject>> = {};
  for (const event of [...Object.keys(WEBHOOK_EVENT_SCHEMAS), "webhook.test", "webhook.disabled"]) {
    out[event] = {
      post: {
        operationId: `webhook_${event.replace(/\./g, "_")}`,
        summary: event,
        description:
          `${WEBHOOK_EVENT_DESCRIPTIONS[event as keyof typeof WEBHOOK_EVENT_DESCRIPTIONS] ?? ""}\n\nSent as \`POST\` to the registered URL. ` +
          "Verify `X-Service-Signature` against the raw body in constant time (the SDK's " +
          "`verifyWebhook`), answer 2xx within 5 seconds; anything else is retried.",
        tags: ["Webhooks"],
        parameters: signatureHeaders,
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: { $ref: `#/components/schemas/${schemaName(event)}` } },
          },
        },
        responses: {
          "2XX": { description: "Received" },
          "410": { description: "Gone: the webhook is disabled at once" },
        },
      },
    };
  }
  return out;
}

function schemaName(event: string): string {
  return `WebhookEvent_${event.replace(/\./g, "_")}`;
}

const INTRO = `Custodial asset tokenization on EVM chain 1236: issue NFT-backed assets, transfer them,
trade them on an escrow marketplace, manage API keys and receive signed webhooks.

- **Authentication**: \`X-API-Key: rwa_live_<64 hex>\` (or \`Authorization: Bearer\`). Each
  operation lists the scopes it needs (\`x-required-scopes\`: any one of them; \`write:all\` stands
  for the three write scopes). Keys are for servers only.
- **Errors**: a JSON body \`{ "error": "..." }\`; the status gives the category (400 invalid,
  401 \`Unauthorized\`, 403 \`Insufficient scope\`, 429 \`Rate limit exceeded\` with
  \`Retry-After\`, 500 \`Transaction failed: <reason>\`, 503 \`RPC unavailable\`).
- **Writes** are signed by the organization's custodial wallet. Send an \`Idempotency-Key\` and
  retry with the same key; \`Prefer: respond-async\` answers 202 with a transaction id at once.
- **Tools**: [Postman collection](/postman.json), JavaScript SDK at [/sdk/rwa-sdk.mjs](/sdk/rwa-sdk.mjs)
  (ES module) and [/sdk/rwa-sdk.js](/sdk/rwa-sdk.js) (browser global \`RwaSdk\`).`;

/**
 * Builds the OpenAPI 3.1 document from the route registry: every route's zod request and
 * response schemas become JSON Schema (2020-12) through zod's own `z.toJSONSchema`, so the
 * document describes exactly what the validators accept. Error responses carry the spec's error
 * strings as examples; the webhook payloads are under `webhooks`.
 *
 * @example
 * const doc = buildOpenApiDocument({ coinSymbol: ctx.config.coinSymbol });
 * doc.paths["/api/v1/write/issue-asset"].post.operationId // "issueAsset"
 */
export function buildOpenApiDocument(options: BuildOpenApiOptions = {}): OpenApiDocument {
  const routes = options.routes ?? DOCUMENTED_ROUTES;
  const extras = options.extraOperations ?? EXTRA_OPERATIONS;
  const coinSymbol = options.coinSymbol ?? "COIN";
  const paths: Record<string, Record<string, JsonObject>> = {};
  const seenIds = new Set<string>();
  const add = (method: string, path: string, operation: JsonObject) => {
    const id = operation.operationId as string;
    if (seenIds.has(id)) throw new Error(`Duplicate operationId ${id} (${method} ${path})`);
    seenIds.add(id);
    const item = (paths[openApiPath(path)] ??= {});
    if (item[method] !== undefined) throw new Error(`Route documented twice: ${method} ${path}`);
    item[method] = operation;
  };
  for (const route of routes) add(route.method, route.path, routeOperation(route, coinSymbol));
  for (const extra of extras) add(extra.method, extra.path, extraOperation(extra));

  const schemas: Record<string, JsonObject> = {
    Error: jsonSchemaOf(errorBody, "output"),
    WriteAccepted: jsonSchemaOf(writeAccepted, "output"),
  };
  for (const event of Object.keys(WEBHOOK_EVENT_SCHEMAS) as Array<
    keyof typeof WEBHOOK_EVENT_SCHEMAS
  >) {
    schemas[schemaName(event)] = jsonSchemaOf(WEBHOOK_EVENT_SCHEMAS[event], "output");
  }
  schemas[schemaName("webhook.test")] = jsonSchemaOf(WEBHOOK_TEST_SCHEMA, "output");
  schemas[schemaName("webhook.disabled")] = jsonSchemaOf(WEBHOOK_DISABLED_SCHEMA, "output");

  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: {
      title: "RWA asset tokenization API",
      version: options.version ?? "1.0.0",
      description: INTRO,
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    servers: [{ url: options.serverUrl ?? "/", description: "This relayer" }],
    tags: TAGS.map((tag) => ({ ...tag })),
    paths,
    webhooks: webhookOperations(),
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
  };
  addExamples(document);
  return document;
}
