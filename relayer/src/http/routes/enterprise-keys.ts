import { notFoundErrors } from "../openapi/operation-metadata.js";
import { z } from "zod";
import { apiKeySummary, createdApiKey } from "../../domain/api-key.js";
import { MAX_ALLOWED_IPS } from "../../auth/allowed-ips.js";
import { createApiKey, listApiKeys, revokeApiKey } from "../../auth/api-keys.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody, scopeSchema, timestampSchema } from "./schemas.js";

const keyIdSchema = z.string().min(1, "must not be empty").max(64, "too long");

/** `GET /api/enterprise/keys` response. */
export const listKeysResponse = z.object({ keys: z.array(apiKeySummary) });

/** `POST /api/enterprise/keys` body. */
export const createKeyRequest = z.strictObject({
  scopes: z.array(scopeSchema).min(1, "must be a non-empty array of scopes").max(20),
  label: z
    .string()
    .trim()
    .min(1, "must be 1 to 100 characters")
    .max(100, "must be 1 to 100 characters")
    .optional(),
  expiresAt: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 time such as 2030-01-01T00:00:00Z" })
    .refine((value) => Date.parse(value) > Date.now(), "must be in the future")
    .optional()
    .describe("when the key stops working (401 `API key expired`); absent: never"),
  allowedIps: z
    .array(z.string().max(64, "too long"))
    .min(1, "must list at least one address or CIDR range")
    .max(MAX_ALLOWED_IPS, `must list at most ${MAX_ALLOWED_IPS} ranges`)
    .optional()
    .describe(
      "IP addresses or CIDR ranges (`203.0.113.0/24`, `2001:db8::/32`) the key may be used " +
        "from; a request from elsewhere answers 403. Absent: anywhere",
    ),
});

/** `POST /api/enterprise/keys` response: the key string is shown only here. */
export const createKeyResponse = createdApiKey;

/** `DELETE /api/enterprise/keys` body. */
export const revokeKeyRequest = z.strictObject({ keyId: keyIdSchema });

/** Revocation result. */
export const revokeKeyResponse = z.object({
  keyId: z.string(),
  revoked: z.literal(true),
  revokedAt: timestampSchema,
});

const keyErrors = { ...apiKeyErrors, 404: errorBody, 409: errorBody } as const;

/** `GET /api/enterprise/keys` (scope read): the organization's keys, revoked ones included. */
export const listKeysRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/keys",
  summary: "List the organization's API keys",
  docs: { operationId: "listKeys", tag: "API keys" },
  auth: "apiKey",
  scopes: ["read"],
  request: {},
  responses: { 200: listKeysResponse, ...apiKeyErrors },
  handler: async ({ ctx, principal }) => ({ keys: await listApiKeys(ctx, principal!.orgId) }),
});

/** `POST /api/enterprise/keys` (scope read): a new key with a subset of the caller's scopes. */
export const createKeyRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/keys",
  summary: "Create an additional API key (scopes: a subset of the calling key's)",
  docs: {
    operationId: "createKey",
    tag: "API keys",
    description: "The key string is in this answer only.",
  },
  auth: "apiKey",
  scopes: ["read"],
  request: { body: createKeyRequest },
  responses: { 200: createKeyResponse, ...keyErrors },
  handler: async ({ ctx, principal, body, origin }) => createApiKey(ctx, principal!, body, origin),
});

/** `DELETE /api/enterprise/keys` with `{ keyId }` (scope read): revoke a key. */
export const revokeKeyRoute = defineRoute({
  method: "delete",
  path: "/api/enterprise/keys",
  summary: "Revoke an API key",
  docs: {
    operationId: "revokeKey",
    tag: "API keys",
    errors: { ...notFoundErrors("API key"), 409: ["Cannot revoke the last active key"] },
  },
  auth: "apiKey",
  scopes: ["read"],
  request: { body: revokeKeyRequest },
  responses: { 200: revokeKeyResponse, ...keyErrors },
  handler: async ({ ctx, principal, body, origin }) =>
    revokeApiKey(ctx, principal!, body.keyId, origin),
});

/** `DELETE /api/enterprise/keys/:keyId` (scope read): same as the body form. */
export const revokeKeyByPathRoute = defineRoute({
  method: "delete",
  path: "/api/enterprise/keys/:keyId",
  summary: "Revoke an API key (id in the path)",
  docs: {
    operationId: "revokeKeyById",
    tag: "API keys",
    errors: { ...notFoundErrors("API key"), 409: ["Cannot revoke the last active key"] },
  },
  auth: "apiKey",
  scopes: ["read"],
  request: { params: z.object({ keyId: keyIdSchema }) },
  responses: { 200: revokeKeyResponse, ...keyErrors },
  handler: async ({ ctx, principal, params, origin }) =>
    revokeApiKey(ctx, principal!, params.keyId, origin),
});
