/** Paths served by the documentation router (`relayer/src/http/routes/docs.ts`). */
export const DOCS_PATHS = {
  openapi: "/openapi.json",
  docs: "/docs",
  docsAsset: "/docs/assets/:file",
  postman: "/postman.json",
  sdk: "/sdk/:file",
} as const;

/** A route that is not a `defineRoute` (plain Express handler) but is still documented. */
export interface ExtraOperation {
  method: "get";
  /** Express path. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** Media type of the success body and an optional schema of it. */
  contentType: string;
  schema?: Record<string, unknown>;
  /** Path parameter names with their allowed values, if fixed. */
  pathParams?: Record<string, readonly string[] | undefined>;
  tag: "System" | "Documentation" | "Console";
  /** Success status (default 200). */
  status?: number;
  /** Whether a 404 is possible (unknown file). */
  notFound?: boolean;
}

/** The bundle and asset file names the documentation router serves. */
export const SDK_FILES = ["rwa-sdk.js", "rwa-sdk.mjs"] as const;

/** Swagger UI files served from `node_modules/swagger-ui-dist` under `/docs/assets/`. */
export const DOCS_ASSET_FILES = [
  "swagger-ui-bundle.js",
  "swagger-ui-standalone-preset.js",
  "swagger-ui.css",
  "favicon-32x32.png",
] as const;

/**
 * Plain Express routes the app mounts outside the route registry: `/metrics` (app.ts) and the
 * documentation router's. The coverage test compares the app's router with registry + these.
 */
export const EXTRA_OPERATIONS: readonly ExtraOperation[] = [
  {
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    summary: "Prometheus metrics",
    contentType: "text/plain",
    schema: { type: "string" },
    tag: "System",
  },
  {
    method: "get",
    path: "/console",
    operationId: "getConsole",
    summary: "Admin console (static web app under /console/)",
    status: 301,
    description: "Redirects to `/console/`; the pages are served from the console's static export.",
    contentType: "text/html",
    schema: { type: "string" },
    tag: "Console",
  },
  {
    method: "get",
    path: "/ipfs/:cid",
    operationId: "getIpfsBlock",
    summary: "Metadata document by IPFS CID (local gateway)",
    description:
      "The bytes of a metadata document, by the CID its token stores on chain (CIDv1, raw " +
      "codec, sha2-256: what `ipfs add --cid-version 1` gives the same file). The bytes always " +
      "hash to the CID, as on any IPFS gateway. Public; 404 for a CID this service does not hold.",
    contentType: "application/json",
    schema: { type: "object" },
    pathParams: { cid: undefined },
    tag: "System",
    notFound: true,
  },
  {
    method: "get",
    path: DOCS_PATHS.openapi,
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI 3.1 document",
    contentType: "application/json",
    schema: { type: "object" },
    tag: "Documentation",
  },
  {
    method: "get",
    path: DOCS_PATHS.docs,
    operationId: "getApiReference",
    summary: "API reference page (works offline)",
    contentType: "text/html",
    schema: { type: "string" },
    tag: "Documentation",
  },
  {
    method: "get",
    path: DOCS_PATHS.docsAsset,
    operationId: "getApiReferenceAsset",
    summary: "Script, style and icon files of the reference page",
    contentType: "application/octet-stream",
    pathParams: { file: DOCS_ASSET_FILES },
    tag: "Documentation",
    notFound: true,
  },
  {
    method: "get",
    path: DOCS_PATHS.postman,
    operationId: "getPostmanCollection",
    summary: "Postman v2.1 collection generated from this document",
    description: "Collection variables: `baseUrl` (this server), `apiKey` and `adminToken`.",
    contentType: "application/json",
    schema: { type: "object" },
    tag: "Documentation",
  },
  {
    method: "get",
    path: DOCS_PATHS.sdk,
    operationId: "getSdkBundle",
    summary: "JavaScript SDK bundle",
    description:
      "`rwa-sdk.js`: an IIFE defining the global `RwaSdk`; `rwa-sdk.mjs`: an ES module. Both " +
      "export `RwaClient`, `ApiError` and `verifyWebhook`. API keys belong on servers: the " +
      "client warns when constructed in a browser with a live key.",
    contentType: "text/javascript",
    schema: { type: "string" },
    pathParams: { file: SDK_FILES },
    tag: "Documentation",
    notFound: true,
  },
];
