import { z } from "zod";
import { defineRoute } from "../route-definition.js";

/** Liveness: the HTTP server answers. (Dependency health is `GET /api/v1/status`.) */
export const healthRoute = defineRoute({
  method: "get",
  path: "/healthz",
  summary: "Liveness probe",
  docs: { operationId: "getHealth", tag: "System" },
  auth: "none",
  scopes: [],
  request: {},
  responses: { 200: z.object({ status: z.literal("ok") }) },
  handler: () => Promise.resolve({ status: "ok" as const }),
});
