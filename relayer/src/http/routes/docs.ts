import { publicBaseUrlOf } from "../public-base-url.js";
import { createRequire } from "node:module";
import path from "node:path";
import { Router, type Response } from "express";
import { sdkBundles } from "../../../sdk/build-bundles.js";
import { SERVED_BASE_URL_PLACEHOLDER } from "../../../sdk/served-base-url.js";
import type { AppContext } from "../../context.js";
import { NotFoundError } from "../../errors.js";
import { buildOpenApiDocument, type OpenApiDocument } from "../openapi/build-openapi.js";
import { DOCS_PAGE_CSP, docsPageHtml } from "../openapi/docs-page.js";
import { DOCS_ASSET_FILES, DOCS_PATHS, SDK_FILES } from "../openapi/extra-operations.js";
import { toPostmanCollection, withBaseUrl, type PostmanCollection } from "../openapi/postman.js";

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));

/**
 * Built once per coin symbol (the documents depend only on the code and the symbol): a memo of
 * pure functions, not a service.
 */
const documents = new Map<string, OpenApiDocument>();
const collections = new Map<string, Promise<PostmanCollection>>();

/** The OpenAPI document of this relayer. */
export function openApiDocumentOf(ctx: AppContext): OpenApiDocument {
  const { coinSymbol } = ctx.config;
  let doc = documents.get(coinSymbol);
  if (doc === undefined) {
    doc = buildOpenApiDocument({ coinSymbol });
    documents.set(coinSymbol, doc);
  }
  return doc;
}

function postmanOf(ctx: AppContext): Promise<PostmanCollection> {
  const { coinSymbol } = ctx.config;
  let collection = collections.get(coinSymbol);
  if (collection === undefined) {
    collection = toPostmanCollection(openApiDocumentOf(ctx), "http://127.0.0.1:3000");
    collections.set(coinSymbol, collection);
    collection.catch(() => collections.delete(coinSymbol));
  }
  return collection;
}

/** The base URL clients reach this relayer at (`PUBLIC_BASE_URL`, else the request's origin). */
const originOf = publicBaseUrlOf;

function sendJson(res: Response, body: unknown): void {
  res.setHeader("Cache-Control", "no-cache");
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.json(body);
}

/**
 * Documentation routes: `GET /openapi.json` (OpenAPI 3.1 generated from the route registry),
 * `GET /docs` (Swagger UI from node_modules, offline), `GET /docs/assets/:file`,
 * `GET /postman.json` (converted once, then cached) and `GET /sdk/rwa-sdk.js|.mjs` (esbuild
 * bundles built on first request, cached in memory). No authentication: nothing here is secret.
 *
 * @example
 * app.use(createDocsRouter(ctx)); // one line in app.ts
 */
export function createDocsRouter(ctx: AppContext): Router {
  const router = Router();

  router.get(DOCS_PATHS.openapi, (req, res) => {
    sendJson(res, {
      ...openApiDocumentOf(ctx),
      servers: [{ url: originOf(ctx, req), description: "This relayer" }],
    });
  });

  router.get(DOCS_PATHS.docs, (_req, res) => {
    res.setHeader("Content-Security-Policy", DOCS_PAGE_CSP);
    res.setHeader("Cache-Control", "no-cache");
    res.type("html").send(docsPageHtml());
  });

  router.get(DOCS_PATHS.docsAsset, (req, res, next) => {
    const file = req.params.file;
    if (file === undefined || !(DOCS_ASSET_FILES as readonly string[]).includes(file)) {
      next(new NotFoundError());
      return;
    }
    res.sendFile(path.join(SWAGGER_UI_DIR, file), { maxAge: "1d" }, (error?: Error) => {
      if (error !== undefined && !res.headersSent) next(error);
    });
  });

  router.get(DOCS_PATHS.postman, async (req, res) => {
    sendJson(res, withBaseUrl(await postmanOf(ctx), originOf(ctx, req)));
  });

  router.get(DOCS_PATHS.sdk, async (req, res, next) => {
    const file = req.params.file;
    if (file === undefined || !(SDK_FILES as readonly string[]).includes(file)) {
      next(new NotFoundError());
      return;
    }
    const bundles = await sdkBundles();
    res.setHeader("Content-Type", "text/javascript; charset=utf-8");
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("X-Content-Type-Options", "nosniff");
    // The bundle knows where it was served from: `new RwaSdk("rwa_live_...")` needs no baseUrl.
    const bundle = file === "rwa-sdk.mjs" ? bundles.esm : bundles.iife;
    res.send(
      bundle.replaceAll(
        JSON.stringify(SERVED_BASE_URL_PLACEHOLDER),
        JSON.stringify(originOf(ctx, req)),
      ),
    );
  });

  return router;
}
