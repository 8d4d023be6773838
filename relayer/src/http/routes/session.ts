import { z } from "zod";
import { PERSON_ROLES } from "../../domain/person.js";
import { signInPerson, type SignedInPerson } from "../../people/people.js";
import {
  listPasskeys,
  MAX_PASSKEYS,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  registerPasskey,
  removePasskey,
  signInWithPasskey,
  type RelyingParty,
} from "../../people/passkeys.js";
import { publicBaseUrlOf } from "../public-base-url.js";
import { adminTokenMatches } from "../../auth/require-admin-token.js";
import {
  assertSameOrigin,
  clearSessionCookie,
  sessionOf,
  sessionTokenOf,
  setSessionCookie,
} from "../../auth/session-auth.js";
import {
  createSession,
  csrfTokenOf,
  findSession,
  listPersonSessions,
  revokePersonSession,
  sessionIdOf,
  revokeSession,
  type ConsoleSession,
} from "../../auth/session-store.js";
import { ForbiddenError, NotFoundError, UnauthorizedError } from "../../errors.js";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Request, Response } from "express";
import type { AppContext } from "../../context.js";
import { notFoundErrors } from "../openapi/operation-metadata.js";
import { authenticateApiKey } from "../../auth/api-key-authenticator.js";
import { assertUsedFromAllowedAddress } from "../../auth/require-api-key.js";
import { defineRoute, type AnyRouteDefinition } from "../route-definition.js";
import { errorBody, timestampSchema } from "./schemas.js";

/**
 * Console sign-in, "who am I" and sign-out (console/README.md "Sign-in and sessions": keys stay out of the browser).
 * The browser sends its API key or the admin token once; from then on it holds only an httpOnly
 * session cookie. See `auth/session-auth.ts` for the cookie and the CSRF rules.
 */

/** `POST /api/console/session` body: exactly one credential. */
export const signInRequest = z.union([
  z.strictObject({
    email: z.string().trim().min(1, "must not be empty").max(254, "too long"),
    password: z.string().min(1, "must not be empty").max(1024, "too long"),
    totp: z.string().trim().min(1, "must not be empty").max(16, "too long"),
  }),
  z.strictObject({ apiKey: z.string().trim().min(1, "must not be empty").max(200, "too long") }),
  z.strictObject({
    adminToken: z.string().trim().min(1, "must not be empty").max(200, "too long"),
  }),
]);

/** The refusal of a key or admin-token sign-in unless CONSOLE_KEY_SIGN_IN=on (development). */
export const KEY_SIGN_IN_OFF =
  "Signing in with an API key or the admin token is off: sign in as a person";

/** The signed-in session as the console sees it (never a key, token or hash). */
export const sessionResponse = z.object({
  kind: z.enum(["org", "operator"]),
  orgId: z.string().nullable(),
  orgName: z.string().nullable(),
  plan: z.string().nullable(),
  walletAddress: z.string().nullable(),
  scopes: z.array(z.string()),
  expiresAt: timestampSchema,
  person: z
    .object({ userId: z.string(), email: z.string(), role: z.enum(PERSON_ROLES) })
    .nullable()
    .describe(
      "the signed-in person (an operator role in an operator session); null for a session opened with an API key or the admin token",
    ),
  csrfToken: z.string().describe("send as X-CSRF-Token on POST/PUT/PATCH/DELETE"),
});

type SessionBody = z.infer<typeof sessionResponse>;

function describe(
  session: Pick<
    ConsoleSession,
    | "kind"
    | "orgId"
    | "orgName"
    | "plan"
    | "walletAddress"
    | "scopes"
    | "expiresAt"
    | "userId"
    | "email"
    | "role"
  >,
  token: string,
): SessionBody {
  return {
    kind: session.kind,
    orgId: session.orgId,
    orgName: session.orgName,
    plan: session.plan,
    walletAddress: session.walletAddress,
    scopes: session.scopes,
    expiresAt: session.expiresAt.toISOString(),
    person:
      session.userId === null || session.role === null
        ? null
        : { userId: session.userId, email: session.email ?? "", role: session.role },
    csrfToken: csrfTokenOf(token),
  };
}

/** `POST /api/console/session`: sign in with an org API key or the operator's admin token. */
export const signInRoute = defineRoute({
  method: "post",
  path: "/api/console/session",
  summary:
    "Console sign-in: a person's email, password and TOTP code (or an API key or the admin token) for a session cookie",
  docs: {
    operationId: "createConsoleSession",
    tag: "Console",
    description:
      "Sets an HttpOnly session cookie; later console calls send a CSRF token header. A person " +
      "signs in with `{ email, password, totp }`: an unknown email, a wrong password and a wrong " +
      "or already used code all answer 401 `Invalid credentials`; failed attempts are throttled " +
      "per account and per address (429 with `Retry-After`). A person's session expires after " +
      "30 minutes unused and 12 hours after sign-in. `{ apiKey }` and `{ adminToken }` answer " +
      "403 unless the development setting CONSOLE_KEY_SIGN_IN=on.",
    errors: {
      401: ["Invalid credentials"],
      403: [KEY_SIGN_IN_OFF],
      429: ["Too many sign-in attempts; try again later"],
    },
  },
  auth: "none",
  scopes: [],
  request: { body: signInRequest },
  responses: {
    200: sessionResponse,
    400: errorBody,
    401: errorBody,
    403: errorBody,
    429: errorBody,
  },
  handler: async ({ ctx, req, res, body, origin }) => {
    // Login CSRF: a foreign page must not sign a victim's browser into the attacker's org.
    assertSameOrigin(req, true);
    res.setHeader("Cache-Control", "no-store");
    let owner: Parameters<typeof createSession>[1];
    if ("email" in body) {
      const person = await signInPerson(ctx, body, origin.sourceAddress ?? "unknown");
      owner = personOwner(person);
    } else if (ctx.config.consoleKeySignIn !== true) {
      // People sign in; keys and the admin token are for machines (CONSOLE_KEY_SIGN_IN=on: dev).
      throw new ForbiddenError(KEY_SIGN_IN_OFF, { details: { variable: "CONSOLE_KEY_SIGN_IN" } });
    } else if ("apiKey" in body) {
      const principal = await authenticateApiKey(ctx, body.apiKey);
      // A key bound to addresses opens a console session only from one of them.
      assertUsedFromAllowedAddress(req, principal);
      owner = {
        kind: "org",
        orgId: principal.orgId,
        apiKeyId: principal.keyId,
        scopes: principal.scopes,
      };
    } else {
      if (!adminTokenMatches(body.adminToken, ctx.config.adminToken)) {
        throw new UnauthorizedError({ details: { reason: "wrong admin token" } });
      }
      owner = { kind: "operator" };
    }
    return openSession(ctx, req, res, owner);
  },
});

/** Opens a session for `owner`: the cookie set, the session described with its CSRF token. */
async function openSession(
  ctx: AppContext,
  req: Request,
  res: Response,
  owner: Parameters<typeof createSession>[1],
): Promise<SessionBody> {
  const { token } = await createSession(ctx, owner);
  const session = await findSession(ctx, token);
  if (session === undefined) throw new Error("new session not found");
  setSessionCookie(req, res, token);
  ctx.logger.info(
    { kind: session.kind, orgId: session.orgId, keyId: session.apiKeyId, userId: session.userId },
    "console session opened",
  );
  return describe(session, token);
}

/** A signed-in person's session owner: an organization's, or operator staff's. */
function personOwner(person: SignedInPerson): Parameters<typeof createSession>[1] {
  return person.orgId === null
    ? { kind: "operator", userId: person.userId }
    : { kind: "org", orgId: person.orgId, userId: person.userId };
}

/** The WebAuthn relying party: the host and origin clients reach the console at. */
function relyingParty(ctx: AppContext, req: Request): RelyingParty {
  const base = new URL(publicBaseUrlOf(ctx, req));
  return { rpID: base.hostname, origin: base.origin };
}

/** `GET /api/console/session`: who is signed in (401 when nobody). */
export const getSessionRoute = defineRoute({
  method: "get",
  path: "/api/console/session",
  summary: "The signed-in console session",
  docs: { operationId: "getConsoleSession", tag: "Console" },
  auth: "none",
  scopes: [],
  request: {},
  responses: { 200: sessionResponse, 401: errorBody },
  handler: async ({ ctx, req, res }) => {
    res.setHeader("Cache-Control", "no-store");
    const session = await sessionOf(ctx, req, res);
    const token = sessionTokenOf(req);
    if (session === undefined || token === undefined) {
      throw new UnauthorizedError({ details: { reason: "no session cookie" } });
    }
    return describe(session, token);
  },
});

/** `DELETE /api/console/session`: sign out (revoke the row, clear the cookie). */
export const signOutRoute = defineRoute({
  method: "delete",
  path: "/api/console/session",
  summary: "Console sign-out",
  docs: { operationId: "deleteConsoleSession", tag: "Console" },
  auth: "none",
  scopes: [],
  request: {},
  responses: { 200: z.object({ signedOut: z.literal(true) }), 403: errorBody },
  handler: async ({ ctx, req, res }) => {
    res.setHeader("Cache-Control", "no-store");
    const token = sessionTokenOf(req);
    if (token !== undefined) {
      // CSRF-checked like any other unsafe request: a foreign page must not sign users out.
      const session = await sessionOf(ctx, req, res).catch((error: unknown) => {
        if (error instanceof UnauthorizedError) return undefined; // already invalid: just clear
        throw error;
      });
      await revokeSession(ctx, session?.id ?? sessionIdOf(token));
    }
    clearSessionCookie(req, res);
    return { signedOut: true as const };
  },
});

const ownSession = z.object({
  sessionId: z.string().describe("names the session (the SHA-256 of its cookie, not the cookie)"),
  createdAt: timestampSchema,
  expiresAt: timestampSchema,
  current: z.boolean().describe("the session of this request"),
});

/** `GET /api/console/sessions`: the signed-in person's own active sessions. */
export const listOwnSessionsRoute = defineRoute({
  method: "get",
  path: "/api/console/sessions",
  summary: "The signed-in person's own active sessions",
  docs: { operationId: "listOwnSessions", tag: "Console" },
  auth: "person",
  roles: PERSON_ROLES,
  scopes: [],
  request: {},
  responses: { 200: z.object({ sessions: z.array(ownSession) }), 401: errorBody, 403: errorBody },
  handler: async ({ ctx, res, person, operator }) => {
    res.setHeader("Cache-Control", "no-store");
    const me = (person ?? operator)!;
    return { sessions: await listPersonSessions(ctx, me.userId, me.sessionId) };
  },
});

/** `DELETE /api/console/sessions/:sessionId`: end one of the person's own sessions. */
export const endOwnSessionRoute = defineRoute({
  method: "delete",
  path: "/api/console/sessions/:sessionId",
  summary: "End one of the signed-in person's own sessions",
  docs: { operationId: "endOwnSession", tag: "Console", errors: notFoundErrors("Session") },
  auth: "person",
  roles: PERSON_ROLES,
  scopes: [],
  request: { params: z.object({ sessionId: z.string().min(1).max(64) }) },
  responses: {
    200: z.object({ sessionId: z.string(), ended: z.literal(true) }),
    401: errorBody,
    403: errorBody,
    404: errorBody,
  },
  handler: async ({ ctx, person, operator, params }) => {
    if (!(await revokePersonSession(ctx, (person ?? operator)!.userId, params.sessionId)))
      throw new NotFoundError("Session not found");
    return { sessionId: params.sessionId, ended: true as const };
  },
});

/** A WebAuthn credential as the browser answers it (checked by SimpleWebAuthn). */
const credentialJson = z
  .looseObject({
    id: z.string().min(1, "must not be empty").max(1024, "too long"),
    rawId: z.string().min(1, "must not be empty").max(1024, "too long"),
    type: z.literal("public-key"),
    response: z.record(z.string(), z.unknown()),
    clientExtensionResults: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    // What `@simplewebauthn/browser` answers (shortened): the OpenAPI document's example.
    examples: [
      {
        id: "Gs3Rt0mN2Vx8Qk1Lp9Yc4Wd7Hf",
        rawId: "Gs3Rt0mN2Vx8Qk1Lp9Yc4Wd7Hf",
        type: "public-key",
        response: {
          clientDataJSON: "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0In0",
          authenticatorData: "SZYN5YgO",
        },
        clientExtensionResults: {},
      },
    ],
  });
const challengeId = z.string().min(1, "must not be empty").max(64, "too long");
const webauthnOptions = z.object({
  challengeId: z.string().describe("send it back with the browser's answer"),
  options: z
    .record(z.string(), z.unknown())
    .describe("for @simplewebauthn/browser (startRegistration / startAuthentication)"),
});
const passkeySummary = z.object({
  passkeyId: z.string(),
  name: z.string(),
  createdAt: timestampSchema,
  lastUsedAt: timestampSchema.nullable(),
});

/** `POST /api/console/session/passkey/options`: a challenge to sign in with a passkey. */
export const passkeySignInOptionsRoute = defineRoute({
  method: "post",
  path: "/api/console/session/passkey/options",
  summary: "A challenge to sign in with a passkey",
  docs: { operationId: "passkeySignInOptions", tag: "Console" },
  auth: "none",
  scopes: [],
  request: {},
  responses: { 200: webauthnOptions, 403: errorBody },
  handler: async ({ ctx, req, res }) => {
    assertSameOrigin(req, true);
    res.setHeader("Cache-Control", "no-store");
    return passkeySignInOptions(ctx, relyingParty(ctx, req));
  },
});

/** `POST /api/console/session/passkey`: sign in with a passkey alone. */
export const passkeySignInRoute = defineRoute({
  method: "post",
  path: "/api/console/session/passkey",
  summary: "Console sign-in with a passkey (user verification required)",
  docs: {
    operationId: "createConsoleSessionWithPasskey",
    tag: "Console",
    description:
      "The browser's answer to the challenge of `POST /api/console/session/passkey/options`. " +
      "A passkey with user verification is two factors in itself, so it signs in alone. A " +
      "wrong, used or expired challenge, an unknown passkey or an answer that does not verify " +
      "all answer 401 `Invalid credentials`; throttled like passwords (429).",
    errors: {
      401: ["Invalid credentials"],
      429: ["Too many sign-in attempts; try again later"],
    },
  },
  auth: "none",
  scopes: [],
  request: { body: z.strictObject({ challengeId, response: credentialJson }) },
  responses: {
    200: sessionResponse,
    400: errorBody,
    401: errorBody,
    403: errorBody,
    429: errorBody,
  },
  handler: async ({ ctx, req, res, body, origin }) => {
    assertSameOrigin(req, true);
    res.setHeader("Cache-Control", "no-store");
    const person = await signInWithPasskey(
      ctx,
      {
        challengeId: body.challengeId,
        response: body.response as unknown as AuthenticationResponseJSON,
      },
      relyingParty(ctx, req),
      origin.sourceAddress ?? "unknown",
    );
    return openSession(ctx, req, res, personOwner(person));
  },
});

/** The signed-in person (of an organization or operator staff) of a `person` route. */
function me(input: {
  person: { userId: string; email: string; orgId: string } | undefined;
  operator: { userId: string; email: string } | undefined;
}): { userId: string; email: string; orgId: string | null } {
  if (input.person !== undefined) return input.person;
  return { ...input.operator!, orgId: null };
}

/** `GET /api/console/passkeys`: the signed-in person's own passkeys. */
export const listPasskeysRoute = defineRoute({
  method: "get",
  path: "/api/console/passkeys",
  summary: "The signed-in person's own passkeys",
  docs: { operationId: "listOwnPasskeys", tag: "Console" },
  auth: "person",
  roles: PERSON_ROLES,
  scopes: [],
  request: {},
  responses: {
    200: z.object({ passkeys: z.array(passkeySummary) }),
    401: errorBody,
    403: errorBody,
  },
  handler: async (input) => {
    input.res.setHeader("Cache-Control", "no-store");
    return { passkeys: await listPasskeys(input.ctx, me(input).userId) };
  },
});

/** `POST /api/console/passkeys/options`: a challenge to register a passkey. */
export const passkeyRegistrationOptionsRoute = defineRoute({
  method: "post",
  path: "/api/console/passkeys/options",
  summary: "A challenge to register a passkey for the signed-in person",
  docs: { operationId: "passkeyRegistrationOptions", tag: "Console" },
  auth: "person",
  roles: PERSON_ROLES,
  scopes: [],
  request: {},
  responses: { 200: webauthnOptions, 401: errorBody, 403: errorBody },
  handler: async (input) => {
    input.res.setHeader("Cache-Control", "no-store");
    return passkeyRegistrationOptions(input.ctx, me(input), relyingParty(input.ctx, input.req));
  },
});

/** `POST /api/console/passkeys`: register a passkey (the browser's answer to the challenge). */
export const registerPasskeyRoute = defineRoute({
  method: "post",
  path: "/api/console/passkeys",
  summary: "Register a passkey for the signed-in person",
  docs: {
    operationId: "registerPasskey",
    tag: "Console",
    errors: {
      400: ["Passkey registration failed"],
      409: [
        `A person keeps at most ${MAX_PASSKEYS} passkeys`,
        "This passkey is already registered",
      ],
    },
  },
  auth: "person",
  roles: PERSON_ROLES,
  scopes: [],
  request: {
    body: z.strictObject({
      challengeId,
      response: credentialJson,
      name: z.string().trim().min(1, "must not be empty").max(100, "too long").default("Passkey"),
    }),
  },
  responses: {
    200: passkeySummary,
    400: errorBody,
    401: errorBody,
    403: errorBody,
    409: errorBody,
  },
  handler: async (input) =>
    registerPasskey(
      input.ctx,
      me(input),
      {
        challengeId: input.body.challengeId,
        response: input.body.response as unknown as RegistrationResponseJSON,
        name: input.body.name,
      },
      relyingParty(input.ctx, input.req),
      input.origin,
    ),
});

/** `DELETE /api/console/passkeys/:passkeyId`: remove one of the person's own passkeys. */
export const removePasskeyRoute = defineRoute({
  method: "delete",
  path: "/api/console/passkeys/:passkeyId",
  summary: "Remove one of the signed-in person's own passkeys",
  docs: { operationId: "removePasskey", tag: "Console", errors: notFoundErrors("Passkey") },
  auth: "person",
  roles: PERSON_ROLES,
  scopes: [],
  request: { params: z.object({ passkeyId: z.string().min(1).max(1024) }) },
  responses: {
    200: z.object({ passkeyId: z.string(), removed: z.literal(true) }),
    401: errorBody,
    403: errorBody,
    404: errorBody,
  },
  handler: async (input) =>
    removePasskey(input.ctx, me(input), input.params.passkeyId, input.origin),
});

/** The console session routes. */
export const SESSION_ROUTES: readonly AnyRouteDefinition[] = [
  signInRoute,
  passkeySignInOptionsRoute,
  passkeySignInRoute,
  listPasskeysRoute,
  passkeyRegistrationOptionsRoute,
  registerPasskeyRoute,
  removePasskeyRoute,
  getSessionRoute,
  signOutRoute,
  listOwnSessionsRoute,
  endOwnSessionRoute,
];
