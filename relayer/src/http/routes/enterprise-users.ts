import { z } from "zod";
import { ORG_ROLES } from "../../domain/person.js";
import {
  acceptInvitation,
  changeRole,
  invitePerson,
  listPeople,
  removePerson,
} from "../../people/people.js";
import { assertSameOrigin } from "../../auth/session-auth.js";
import { publicBaseUrlOf } from "../public-base-url.js";
import { mailInvitation } from "../../people/invitation-mail.js";
import { defineRoute } from "../route-definition.js";
import { emailSchema, errorBody, timestampSchema } from "./schemas.js";

/**
 * People of an organization (docs/people.md): invite (owner or admin), list (owner or admin),
 * change a role and remove (owner), and accept an invitation (the invited person, no session).
 */

const role = z.enum(ORG_ROLES, { error: `must be one of ${ORG_ROLES.join(", ")}` });
const userIdSchema = z.string().min(1, "must not be empty").max(64, "too long");

/** A person as listed. */
export const personSummary = z.object({
  userId: z.string(),
  email: z.string(),
  role,
  status: z.enum(["invited", "active"]).describe("invited: the invitation is not accepted yet"),
  createdAt: timestampSchema,
});

const invitation = z.object({
  url: z.string().describe("the console's accept page with `?token=`: single use, shown once"),
  expiresAt: timestampSchema.describe("72 hours after the invitation"),
});

/** `POST /api/enterprise/users` body. */
export const invitePersonRequest = z.strictObject({ email: emailSchema, role });

/** `POST /api/enterprise/users` answer. */
export const invitedPersonResponse = z.object({
  userId: z.string(),
  email: z.string(),
  role,
  invitation,
});

const personErrors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody } as const;

/** `POST /api/enterprise/users` (a signed-in owner or admin): invite a person. */
export const invitePersonRoute = defineRoute({
  method: "post",
  path: "/api/enterprise/users",
  summary: "Invite a person into the organization with a role",
  docs: {
    operationId: "invitePerson",
    tag: "People",
    description:
      "Answers the invitation link (`?token=`, single use, 72 h) once. Only an owner invites an owner.",
    errors: {
      403: ["Only an owner can invite an owner"],
      409: ["A person with this email already exists"],
    },
  },
  auth: "person",
  roles: ["owner", "admin"],
  scopes: [],
  request: { body: invitePersonRequest },
  responses: { 200: invitedPersonResponse, ...personErrors, 409: errorBody },
  handler: async ({ ctx, req, res, person, body, origin }) => {
    res.setHeader("Cache-Control", "no-store");
    const invited = await invitePerson(
      ctx,
      person!.orgId,
      body,
      person!,
      origin,
      publicBaseUrlOf(ctx, req),
    );
    // With SMTP_URL the link is mailed too; the inviter is answered it once either way.
    await mailInvitation(ctx, { ...invited, ...invited.invitation });
    return invited;
  },
});

/** `GET /api/enterprise/users` (a signed-in owner or admin): the organization's people. */
export const listPeopleRoute = defineRoute({
  method: "get",
  path: "/api/enterprise/users",
  summary: "The organization's people and their roles",
  docs: { operationId: "listPeople", tag: "People" },
  auth: "person",
  roles: ["owner", "admin"],
  scopes: [],
  request: {},
  responses: { 200: z.object({ users: z.array(personSummary) }), ...personErrors },
  handler: async ({ ctx, person }) => ({ users: await listPeople(ctx, person!.orgId) }),
});

/** `PATCH /api/enterprise/users/:userId` (a signed-in owner): change a person's role. */
export const changeRoleRoute = defineRoute({
  method: "patch",
  path: "/api/enterprise/users/:userId",
  summary: "Change a person's role (their sessions end)",
  docs: {
    operationId: "changePersonRole",
    tag: "People",
    errors: { 404: ["Person not found"], 409: ["An organization keeps at least one owner"] },
  },
  auth: "person",
  roles: ["owner"],
  scopes: [],
  request: { params: z.object({ userId: userIdSchema }), body: z.strictObject({ role }) },
  responses: { 200: personSummary, ...personErrors, 409: errorBody },
  handler: async ({ ctx, person, params, body, origin }) =>
    changeRole(ctx, person!.orgId, params.userId, body.role, origin),
});

/** `DELETE /api/enterprise/users/:userId` (a signed-in owner): remove a person. */
export const removePersonRoute = defineRoute({
  method: "delete",
  path: "/api/enterprise/users/:userId",
  summary: "Remove a person (their sessions end, their invitation stops working)",
  docs: {
    operationId: "removePerson",
    tag: "People",
    errors: { 404: ["Person not found"], 409: ["An organization keeps at least one owner"] },
  },
  auth: "person",
  roles: ["owner"],
  scopes: [],
  request: { params: z.object({ userId: userIdSchema }) },
  responses: {
    200: z.object({ userId: z.string(), removed: z.literal(true) }),
    ...personErrors,
    409: errorBody,
  },
  handler: async ({ ctx, person, params, origin }) =>
    removePerson(ctx, person!.orgId, params.userId, origin),
});

/** `POST /api/console/invitations/accept` body. */
export const acceptInvitationRequest = z.strictObject({
  token: z.string().trim().min(1, "must not be empty").max(128, "too long"),
  password: z.string().max(1024, "too long").describe("12 to 256 characters"),
});

/** `POST /api/console/invitations/accept` answer: the TOTP enrollment, shown once. */
export const acceptInvitationResponse = z.object({
  email: z.string(),
  totp: z.object({
    secret: z.string().describe("base32; shown only here"),
    otpauthUri: z.string().describe("otpauth://totp/... for an authenticator app's QR code"),
  }),
});

/** `POST /api/console/invitations/accept` (no credentials: the token is the credential). */
export const acceptInvitationRoute = defineRoute({
  method: "post",
  path: "/api/console/invitations/accept",
  summary: "Accept an invitation: set a password and enroll TOTP",
  docs: {
    operationId: "acceptInvitation",
    tag: "Console",
    description:
      "The token is the one in the invitation link's `?token=`. Answers the TOTP secret once; " +
      "sign in next with `POST /api/console/session`.",
    errors: {
      400: ["Invalid field: password (must be 12 to 256 characters)"],
      404: ["Invitation not found"],
      410: ["Invitation already used", "Invitation expired"],
    },
  },
  auth: "none",
  scopes: [],
  request: { body: acceptInvitationRequest },
  responses: {
    200: acceptInvitationResponse,
    400: errorBody,
    403: errorBody,
    404: errorBody,
    410: errorBody,
  },
  handler: async ({ ctx, req, res, body, origin }) => {
    // A foreign page must not enroll a password it chose on someone's invitation.
    assertSameOrigin(req, true);
    res.setHeader("Cache-Control", "no-store");
    return acceptInvitation(ctx, body.token, body.password, origin);
  },
});
