import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { OrgRole } from "../../../relayer/src/domain/person.js";
import { totpCode } from "../../../relayer/src/people/totp.js";
import type { ApiCallOptions, ApiResponse, TestStack } from "../../support/stack.js";

/** A person signed in to the console: their session cookie, CSRF token and a caller. */
export interface SignedIn {
  userId: string;
  email: string;
  role: OrgRole;
  cookie: string;
  csrfToken: string;
  /** `stack.api` with the session cookie, the CSRF token and a same-origin `Origin`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  api: <T = any>(method: string, path: string, options?: ApiCallOptions) => Promise<ApiResponse<T>>;
}

/** A person who accepted an invitation: what they sign in with. */
export interface Enrolled {
  email: string;
  password: string;
  secret: string;
}

export const PASSWORD = "correct horse battery staple";

/** A unique email. */
export function email(name = "person"): string {
  return `${name}-${randomBytes(4).toString("hex")}@example.com`;
}

/** The token of an invitation URL (`?token=`). */
export function tokenOf(url: string): string {
  const token = new URL(url).searchParams.get("token");
  assert.ok(token !== null && token.length > 0, `no token in ${url}`);
  return token;
}

/** Registers an organization with a first owner; its id, key and the owner's invitation URL. */
export async function registerWithOwner(
  stack: TestStack,
  ownerEmail: string,
  scopes?: string[],
): Promise<{ orgId: string; apiKey: string; invitationUrl: string }> {
  const res = await stack.api("POST", "/api/enterprise/register", {
    adminToken: stack.adminToken,
    body: {
      orgName: `People ${randomBytes(2).toString("hex")}`,
      plan: "enterprise",
      ownerEmail,
      ...(scopes === undefined ? {} : { scopes }),
    },
  });
  assert.equal(res.status, 200, res.text);
  return {
    orgId: res.body.orgId,
    apiKey: res.body.apiKey,
    invitationUrl: res.body.ownerInvitation.url,
  };
}

/** Accepts an invitation with `PASSWORD`; the TOTP secret it answers. */
export async function accept(stack: TestStack, url: string, address: string): Promise<Enrolled> {
  const res = await stack.api("POST", "/api/console/invitations/accept", {
    body: { token: tokenOf(url), password: PASSWORD },
  });
  assert.equal(res.status, 200, res.text);
  return { email: address, password: PASSWORD, secret: res.body.totp.secret };
}

/**
 * Signs in with email, password and a TOTP code. A code is accepted once, so `step` picks the
 * time step (0 now, 1 the next, which the one-step window also accepts) for a second sign-in.
 */
export async function signIn(stack: TestStack, who: Enrolled, step = 0): Promise<SignedIn> {
  return signInWithCode(stack, who, totpCode(who.secret, who.email, Date.now() + step * 30_000));
}

/** Signs in with email, password and the given TOTP code (a test that replays the same code). */
export async function signInWithCode(
  stack: TestStack,
  who: Enrolled,
  code: string,
): Promise<SignedIn> {
  const res = await stack.api("POST", "/api/console/session", {
    body: { email: who.email, password: who.password, totp: code },
  });
  assert.equal(res.status, 200, res.text);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  assert.match(cookie, /^rwa_session=/);
  const csrfToken = res.body.csrfToken as string;
  return {
    userId: res.body.person.userId,
    email: res.body.person.email,
    role: res.body.person.role,
    cookie,
    csrfToken,
    api: (method, path, options = {}) =>
      stack.api(method, path, {
        ...options,
        headers: { cookie, "x-csrf-token": csrfToken, origin: stack.baseUrl, ...options.headers },
      }),
  };
}

/** Invites `role` as `inviter`, accepts and signs in: the new person's session. */
export async function addPerson(
  stack: TestStack,
  inviter: SignedIn,
  role: OrgRole,
): Promise<SignedIn & Enrolled> {
  const address = email(role);
  const res = await inviter.api("POST", "/api/enterprise/users", {
    body: { email: address, role },
  });
  assert.equal(res.status, 200, res.text);
  const enrolled = await accept(stack, res.body.invitation.url, address);
  return { ...(await signIn(stack, enrolled)), ...enrolled };
}
