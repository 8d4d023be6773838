import { z } from "zod";
import { PLANS } from "../../domain/org.js";
import { registerOrganization } from "../../orgs/registration.js";
import { mailInvitation } from "../../people/invitation-mail.js";
import { defineRoute } from "../route-definition.js";
import { publicBaseUrlOf } from "../public-base-url.js";
import { addressSchema, emailSchema, errorBody, scopeSchema, timestampSchema } from "./schemas.js";

/** Request body of `POST /api/enterprise/register`. Unknown fields are rejected. */
export const registerRequest = z.strictObject({
  orgName: z
    .string()
    .trim()
    .min(1, "must be 1 to 100 characters")
    .max(100, "must be 1 to 100 characters"),
  walletMode: z
    .literal("custodial", { error: 'only "custodial" is supported' })
    .default("custodial"),
  scopes: z.array(scopeSchema).min(1, "must be a non-empty array of scopes").max(20).optional(),
  plan: z.enum(PLANS, { error: `must be one of ${PLANS.join(", ")}` }).default("free"),
  ownerEmail: emailSchema
    .optional()
    .describe("the first owner: invited with a single-use link (`ownerInvitation`)"),
});

/** Response of `POST /api/enterprise/register`. `apiKey` is shown only here. */
export const registerResponse = z.object({
  orgId: z.string(),
  orgName: z.string(),
  apiKey: z.string().describe("rwa_live_<64 hex>; shown only once"),
  keyId: z.string(),
  walletAddress: addressSchema,
  scopes: z.array(z.string()),
  plan: z.enum(PLANS),
  devFaucet: z
    .union([
      z.object({ funded: z.literal(true), amount: z.string(), txHash: z.string() }),
      z.object({ funded: z.literal(false), amount: z.string(), reason: z.string() }),
    ])
    .optional()
    .describe(
      "local chain only: the dev faucet's grant to the new wallet, or why it was skipped (the operator account cannot pay)",
    ),
  ownerInvitation: z
    .object({ url: z.string(), expiresAt: timestampSchema })
    .optional()
    .describe("with `ownerEmail`: the first owner's invitation link (`?token=`, 72 h), shown once"),
});

/** `POST /api/enterprise/register` (X-Admin-Token): onboard an organization. */
export const registerRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/register",
  summary: "Onboard an organization (operator staff, X-Admin-Token)",
  docs: {
    operationId: "registerOrganization",
    tag: "Organization",
    description: "For the operator's staff only. The API key in the answer is shown only once.",
    errors: { 400: ["Missing required field: orgName"] },
  },
  auth: "admin",
  scopes: [],
  request: { body: registerRequest },
  responses: {
    200: registerResponse,
    400: errorBody,
    403: errorBody,
    409: errorBody,
    503: errorBody,
  },
  handler: async ({ ctx, req, body, origin }) => {
    const { ownerEmail, ...rest } = body;
    const owner =
      ownerEmail === undefined
        ? undefined
        : { email: ownerEmail, baseUrl: publicBaseUrlOf(ctx, req) };
    const registered = await registerOrganization(ctx, { ...rest, owner }, origin);
    // With SMTP_URL the first owner's link is mailed too (the answer carries it either way).
    if (ownerEmail !== undefined && registered.ownerInvitation !== undefined)
      await mailInvitation(ctx, {
        email: ownerEmail,
        role: "owner",
        orgName: rest.orgName,
        ...registered.ownerInvitation,
      });
    return registered;
  },
});
