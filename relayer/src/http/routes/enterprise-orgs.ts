import { z } from "zod";
import { apiKeySummary } from "../../domain/api-key.js";
import { PLANS } from "../../domain/org.js";
import { notFoundErrors } from "../openapi/operation-metadata.js";
import { getOrg, listOrgKeys, listOrgs, revokeOrgKey, updateOrg } from "../../orgs/controls.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { revokeKeyResponse } from "./enterprise-keys.js";
import { errorBody, timestampSchema } from "./schemas.js";

/**
 * Operator staff's controls over organizations (`X-Admin-Token` or an operator console session;
 * docs/api-decisions.md "Operator controls"): list and search, change the plan, suspend and resume, list and
 * revoke any key.
 */

const orgIdSchema = z.string().min(1, "must not be empty").max(64, "too long");
const keyIdSchema = z.string().min(1, "must not be empty").max(64, "too long");

/** An organization as operator staff see it. */
export const orgOverviewSchema = z.object({
  orgId: z.string(),
  orgName: z.string(),
  plan: z.string(),
  scopes: z.array(z.string()),
  suspended: z.boolean(),
  suspendedAt: timestampSchema.nullable(),
  walletAddress: z.string().nullable(),
  keyCount: z.number().int().describe("active keys: not revoked, not expired"),
  createdAt: timestampSchema,
});

/** `GET /api/enterprise/orgs` query. */
export const listOrgsQuery = z.strictObject({
  q: z
    .string()
    .max(100, "must be at most 100 characters")
    .optional()
    .describe("case-insensitive part of the name"),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "must be an integer from 1 to 100")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 100, "must be an integer from 1 to 100")
    .optional(),
  cursor: z.string().max(200, "too long").optional(),
});

/** `GET /api/enterprise/orgs` response. */
export const listOrgsResponse = z.object({
  data: z.array(orgOverviewSchema),
  nextCursor: z.string().nullable(),
});

/** `PATCH /api/enterprise/orgs/{orgId}` body: at least one of the two. */
export const updateOrgRequest = z
  .strictObject({
    plan: z.enum(PLANS, { error: `must be one of ${PLANS.join(", ")}` }).optional(),
    suspended: z.boolean({ error: "must be true or false" }).optional(),
  })
  .refine((body) => body.plan !== undefined || body.suspended !== undefined, {
    message: "give plan and/or suspended",
  });

/** `PATCH /api/enterprise/orgs/{orgId}` response. */
export const updateOrgResponse = z.object({
  org: orgOverviewSchema,
  changes: z.object({
    plan: z.object({ from: z.string(), to: z.enum(PLANS) }).optional(),
    suspended: z.object({ from: z.boolean(), to: z.boolean() }).optional(),
  }),
});

/** `GET /api/enterprise/orgs/{orgId}/keys` response. */
export const orgKeysResponse = z.object({ keys: z.array(apiKeySummary) });

const adminErrors = { 400: errorBody, 403: errorBody } as const;

/** `GET /api/enterprise/orgs`: organizations, oldest first, in cursor pages. */
export const listOrgsRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/orgs",
  summary: "List organizations, by name with ?q= (operator staff)",
  docs: {
    operationId: "listOrgs",
    tag: "Organization",
    description:
      "Oldest first. Pass `nextCursor` back as `cursor` for the next page; `null` means the last page.",
  },
  auth: "admin",
  scopes: [],
  request: { query: listOrgsQuery },
  responses: { 200: listOrgsResponse, ...adminErrors },
  handler: async ({ ctx, query }) =>
    listOrgs(ctx, { q: query.q, limit: query.limit ?? 50, cursor: query.cursor }),
});

/** `GET /api/enterprise/orgs/:orgId`: one organization as the list shows it. */
export const getOrgRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/orgs/:orgId",
  summary: "One organization (operator staff)",
  docs: { operationId: "getOrg", tag: "Organization", errors: notFoundErrors("Organization") },
  auth: "admin",
  scopes: [],
  request: { params: z.object({ orgId: orgIdSchema }) },
  responses: { 200: orgOverviewSchema, ...adminErrors, 404: errorBody },
  handler: async ({ ctx, params }) => getOrg(ctx, params.orgId),
});

/** `PATCH /api/enterprise/orgs/:orgId`: change the plan, suspend or resume. */
export const updateOrgRoute = defineRoute({
  method: "patch",
  path: "/api/enterprise/orgs/:orgId",
  summary: "Change an organization's plan, suspend or resume it (operator staff)",
  docs: {
    operationId: "updateOrg",
    tag: "Organization",
    description:
      "A new plan's limits apply from the organization's next request. While suspended, its " +
      "keys and console sessions answer 403 `Organization suspended`, its queued writes are " +
      "held (sent after it is resumed) and its webhooks keep their backlog.",
    errors: notFoundErrors("Organization"),
  },
  auth: "admin",
  scopes: [],
  request: { params: z.object({ orgId: orgIdSchema }), body: updateOrgRequest },
  responses: { 200: updateOrgResponse, ...adminErrors, 404: errorBody },
  handler: async ({ ctx, params, body, origin }) => updateOrg(ctx, params.orgId, body, origin),
});

/** `GET /api/enterprise/orgs/:orgId/keys`: the organization's keys (by prefix only). */
export const listOrgKeysRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/orgs/:orgId/keys",
  summary: "List an organization's API keys (operator staff)",
  docs: { operationId: "listOrgKeys", tag: "API keys", errors: notFoundErrors("Organization") },
  auth: "admin",
  scopes: [],
  request: { params: z.object({ orgId: orgIdSchema }) },
  responses: { 200: orgKeysResponse, ...adminErrors, 404: errorBody },
  handler: async ({ ctx, params }) => ({ keys: await listOrgKeys(ctx, params.orgId) }),
});

/** `DELETE /api/enterprise/orgs/:orgId/keys/:keyId`: revoke any key of the organization. */
export const revokeOrgKeyRoute = defineRoute({
  method: "delete",
  path: "/api/enterprise/orgs/:orgId/keys/:keyId",
  summary: "Revoke any API key of an organization (operator staff)",
  docs: {
    operationId: "revokeOrgKey",
    tag: "API keys",
    description: "Its last active key too. A key of another organization is 404.",
    errors: { 404: ["Organization not found", "API key not found"] },
  },
  auth: "admin",
  scopes: [],
  request: { params: z.object({ orgId: orgIdSchema, keyId: keyIdSchema }) },
  responses: { 200: revokeKeyResponse, ...adminErrors, 404: errorBody },
  handler: async ({ ctx, params, origin }) => revokeOrgKey(ctx, params.orgId, params.keyId, origin),
});

/** The operator's organization routes. */
export const ORG_CONTROL_ROUTES: readonly AnyRouteDefinition[] = [
  listOrgsRoute,
  getOrgRoute,
  updateOrgRoute,
  listOrgKeysRoute,
  revokeOrgKeyRoute,
];
