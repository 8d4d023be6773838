import { z } from "zod";
import { registerAssetTypeAsOperator } from "../../operator/register-asset-type.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { assetTypeNameField } from "../../shared/parse-input.js";
import { errorBody, sentErrorBody } from "./schemas.js";

/**
 * Operator-only console routes (the organization list and controls are the management API's,
 * `enterprise-orgs.ts`). `auth: "admin"` accepts `X-Admin-Token` or an operator console
 * session (cookie + CSRF), like `POST /api/enterprise/register`.
 */

/** `POST /api/console/operator/asset-types` body. */
export const operatorAssetTypeRequest = z.strictObject({
  typeName: z.string().trim().pipe(assetTypeNameField),
});

/** `POST /api/console/operator/asset-types` response. */
export const operatorAssetTypeResponse = z.object({
  success: z.literal(true),
  typeName: z.string(),
  txHash: z.string(),
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
    200: operatorAssetTypeResponse,
    400: errorBody,
    401: errorBody,
    403: errorBody,
    500: sentErrorBody,
    503: sentErrorBody,
  },
  handler: async ({ ctx, body, origin }) => registerAssetTypeAsOperator(ctx, body.typeName, origin),
});

/** The operator console routes. */
export const SESSION_OPERATOR_ROUTES: readonly AnyRouteDefinition[] = [operatorAssetTypeRoute];
