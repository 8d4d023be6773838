import { z } from "zod";
import { defineRoute } from "../route-definition.js";

/** Where a newcomer goes from `GET /`: every entry point of the service, as relative links. */
export const SERVICE_LINKS = {
  docs: "/docs",
  console: "/console",
  openapi: "/openapi.json",
  postman: "/postman.json",
  sdk: "/sdk/rwa-sdk.mjs",
  sdkScript: "/sdk/rwa-sdk.js",
  status: "/api/v1/status",
  health: "/healthz",
} as const;

/** `GET /`: what this service is and where to go next (instead of a 404). */
export const rootRoute = defineRoute({
  method: "get",
  path: "/",
  summary: "Service entry point: links to the docs, console, OpenAPI, SDK and status",
  docs: {
    operationId: "getServiceIndex",
    tag: "System",
    description:
      "Where to go next: the API reference (`/docs`), the admin console, the OpenAPI document, " +
      "the Postman collection, the SDK bundles, status and liveness, as paths relative to this server.",
  },
  auth: "none",
  scopes: [],
  request: {},
  responses: {
    200: z.object({
      service: z.string(),
      links: z.object({
        docs: z.string(),
        console: z.string(),
        openapi: z.string(),
        postman: z.string(),
        sdk: z.string(),
        sdkScript: z.string(),
        status: z.string(),
        health: z.string(),
      }),
    }),
  },
  handler: () =>
    Promise.resolve({
      service: "RWA relayer: asset tokenization and marketplace on chain 1236",
      links: { ...SERVICE_LINKS },
    }),
});
