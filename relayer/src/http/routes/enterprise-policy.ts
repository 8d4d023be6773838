import { orgPolicy, orgPolicyResponse } from "../../domain/policy.js";
import { readPolicy, writePolicy, type StoredPolicy } from "../../policy/org-policy.js";
import { defineRoute } from "../route-definition.js";
import { apiKeyErrors, errorBody } from "./schemas.js";

function describe(stored: StoredPolicy) {
  return { ...stored.policy, updatedAt: stored.updatedAt?.toISOString() ?? null };
}

const POLICY_TEXT =
  "`destinations.mode` `allowlist`: a transfer to an address not on `destinations.allowlist` " +
  "answers 403 `Policy: ...`, and nothing is recorded or signed. `limits.transfersPerDay`: the " +
  "transfers recorded in any rolling 24 hours (failed ones do not count); one more answers 403 " +
  "`Policy: ...`. A write is judged by the policy in force when it is recorded.";

/** `GET /api/enterprise/policy` (scope read): the organization's policy. */
export const getPolicyRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/policy",
  summary: "The organization's policy: destinations, limits and approval rules",
  docs: { operationId: "getPolicy", tag: "Organization", description: POLICY_TEXT },
  auth: "apiKey",
  scopes: ["read"],
  request: {},
  responses: { 200: orgPolicyResponse, ...apiKeyErrors },
  handler: async ({ ctx, principal }) => describe(await readPolicy(ctx.database, principal!.orgId)),
});

/** `PUT /api/enterprise/policy` (a signed-in owner): replaces the policy. */
export const putPolicyRoute = defineRoute({
  method: "put",
  path: "/api/enterprise/policy",
  summary: "Replace the organization's policy (a signed-in owner only)",
  docs: {
    operationId: "setPolicy",
    tag: "Organization",
    description:
      `${POLICY_TEXT} The whole policy is replaced; every change is in the audit log with the ` +
      "policy before and after. An API key gets 403: what limits a key, a key cannot loosen.",
    errors: {
      400: [
        "Invalid field: destinations.allowlist.0.address (not a 0x address)",
        "Invalid field: approvals.0.kinds.0 (must be one of issue-asset, ...)",
        "Invalid field: approvals.0.approvers (must be 1 or 2)",
      ],
      403: ["Requires a signed-in owner"],
    },
  },
  auth: "person",
  roles: ["owner"],
  scopes: [],
  request: { body: orgPolicy },
  responses: { 200: orgPolicyResponse, 400: errorBody, 401: errorBody, 403: errorBody },
  handler: async ({ ctx, person, body, origin }) =>
    describe(await writePolicy(ctx.database, person!.orgId, body, origin)),
});
