import { z } from "zod";
import { listOrganizations, registerAssetTypeAsOperator } from "../../console/operator-service.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { assetTypeNameField } from "../../writes/write-inputs.js";
import { errorBody, timestampSchema } from "./schemas.js";

/**
 * Operator-only console routes. `auth: "admin"` accepts `X-Admin-Token` or an operator console
 * session (cookie + CSRF), like `POST /api/enterprise/register`.
 */

/** `GET /api/console/operator/orgs` response. */
export const operatorOrgsResponse = z.object({
  orgs: z.array(
    z.object({
      orgId: z.string(),
      name: z.string(),
      plan: z.string(),
      scopes: z.array(z.string()),
      walletAddress: z.string().nullable(),
      createdAt: timestampSchema,
    }),
  ),
});

/** `POST /api/console/operator/asset-types` body. */
export const operatorAssetTypeRequest = z.strictObject({
  typeName: z.string().trim().pipe(assetTypeNameField),
});

/** `GET /api/console/operator/orgs`: every organization (operator staff). */
export const operatorOrgsRoute = defineRoute({
  method: "get",
  path: "/api/console/operator/orgs",
  summary: "List organizations (operator staff)",
  docs: { operationId: "listOrganizations", tag: "Console" },
  auth: "admin",
  scopes: [],
  request: {},
  responses: { 200: operatorOrgsResponse, 401: errorBody, 403: errorBody },
  handler: async ({ ctx }) => ({ orgs: await listOrganizations(ctx) }),
});

/** `POST /api/console/operator/asset-types`: register a type from the operator account. */
export const operatorAssetTypeRoute = defineRoute({
  method: "post",
  path: "/api/console/operator/asset-types",
  summary: "Register an asset type from the operator account (operator staff)",
  docs: {
    operationId: "registerAssetTypeAsOperator",
    tag: "Console",
  },
  auth: "admin",
  scopes: [],
  request: { body: operatorAssetTypeRequest },
  responses: {
    200: z.object({ success: z.literal(true), typeName: z.string(), txHash: z.string() }),
    400: errorBody,
    401: errorBody,
    403: errorBody,
    500: errorBody,
    503: errorBody,
  },
  handler: async ({ ctx, body }) => registerAssetTypeAsOperator(ctx, body.typeName),
});

/** The operator console routes. */
export const SESSION_OPERATOR_ROUTES: readonly AnyRouteDefinition[] = [
  operatorOrgsRoute,
  operatorAssetTypeRoute,
];
