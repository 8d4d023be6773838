import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import { apiKeys, orgs, sessions, users, wallets } from "../db/schema/index.js";
import { roleScopes } from "./roles.js";
import { isOperatorRole, type PersonRole } from "../domain/person.js";
import { expandScopes } from "./scopes.js";

/**
 * Console sessions (console/README.md "Sign-in and sessions": browsers never hold API keys). Signing in trades an API key or
 * the admin token for a random 256-bit session token that lives only in an httpOnly cookie; the
 * database keeps its SHA-256 (`sessions.id`), never the token itself, so a database dump cannot be
 * replayed as a cookie.
 *
 * An operator session is bound to the admin token it was opened with: half of its 32 random
 * bytes are an HMAC of the other half under the admin token, checked on every request, so when
 * the operator changes ADMIN_TOKEN (a leaked token is rotated by restarting with a new one) every
 * console session opened with the old token ends, with no column to keep in step.
 */

/** A person's session (docs/people.md): idle lifetime 30 min, absolute 12 h. */
export const PERSON_SESSION_IDLE_MS = 30 * 60 * 1000;
export const PERSON_SESSION_MAX_MS = 12 * 60 * 60 * 1000;

/** Idle lifetime: a session unused for this long expires (sliding). */
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000;
/** Absolute lifetime from sign-in, whatever the activity (also the cookie's Max-Age). */
export const SESSION_MAX_MS = 24 * 60 * 60 * 1000;
/**
 * The sliding expiry is pushed forward at most this often per session, so a busy console does
 * not write the row on every request.
 */
const SLIDE_RESOLUTION_MS = 5 * 60 * 1000;

/**
 * `org`: an organization's person, or an org admin signed in with an API key; `operator`: an
 * operator person (docs/people.md "Operator staff"), or staff signed in with the admin token.
 */
export type SessionKind = "org" | "operator";

/** A valid, unexpired, unrevoked session as resolved from a cookie. */
export interface ConsoleSession {
  /** SHA-256 of the cookie value (the row id). */
  id: string;
  kind: SessionKind;
  /** Set for `org` sessions. */
  orgId: string | null;
  orgName: string | null;
  plan: string | null;
  walletAddress: string | null;
  /** The API key the session was opened with (`org` sessions); revoking it ends the session. */
  apiKeyId: string | null;
  /** `org` sessions: operator staff suspended the org (its API calls answer 403). */
  suspended: boolean;
  /** The key's scopes as stored (may contain `write:all`); empty for operators. */
  scopes: string[];
  grantedScopes: ReadonlySet<string>;
  createdAt: Date;
  expiresAt: Date;
  /**
   * A person's session (docs/people.md): the person, their email and role (an organization's
   * for `org` sessions, an operator role for `operator` ones); else null.
   */
  userId: string | null;
  email: string | null;
  role: PersonRole | null;
}

/** A freshly generated session token: `token` goes into the cookie, `id` into the database. */
export interface NewSessionToken {
  token: string;
  id: string;
}

const NONCE_BYTES = 16;

/** The 16-byte tag binding an operator session's nonce to the admin token. */
function adminTokenTag(adminToken: string, nonce: Buffer): Buffer {
  return createHmac("sha256", adminToken)
    .update("rwa-operator-session-v1\n")
    .update(nonce)
    .digest()
    .subarray(0, NONCE_BYTES);
}

/**
 * Generates a session token (base64url of 32 bytes, 43 characters) and its row id. Without
 * `adminToken` all 32 bytes are random; with it (operator sessions) 16 are random and 16 are
 * their tag under the admin token (`operatorTokenValid`).
 */
export function generateSessionToken(adminToken?: string): NewSessionToken {
  const bytes =
    adminToken === undefined
      ? randomBytes(32)
      : (() => {
          const nonce = randomBytes(NONCE_BYTES);
          return Buffer.concat([nonce, adminTokenTag(adminToken, nonce)]);
        })();
  const token = bytes.toString("base64url");
  return { token, id: sessionIdOf(token) };
}

/** Whether an operator session token was issued under `adminToken` (the current one). */
export function operatorTokenValid(token: string, adminToken: string): boolean {
  const bytes = Buffer.from(token, "base64url");
  if (bytes.length !== 2 * NONCE_BYTES) return false;
  const expected = adminTokenTag(adminToken, bytes.subarray(0, NONCE_BYTES));
  return timingSafeEqual(bytes.subarray(NONCE_BYTES), expected);
}

/** The row id of a cookie value: lowercase hex SHA-256. */
export function sessionIdOf(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * The CSRF token of a session: an HMAC of the cookie value under a fixed label. It is derived
 * rather than stored (the sessions table has no column for it), cannot be computed without the
 * httpOnly cookie, and differs from the row id so a database read does not yield it.
 */
export function csrfTokenOf(token: string): string {
  return createHmac("sha256", "rwa-console-csrf-v1").update(token, "utf8").digest("base64url");
}

/**
 * Stores a new session and returns its token (to be put in the cookie) and expiry.
 *
 * @param owner the kind and, for org sessions, the org, key and key scopes it acts as
 */
export async function createSession(
  ctx: AppContext,
  owner:
    | { kind: "org"; orgId: string; apiKeyId: string; scopes: string[] }
    | { kind: "org"; orgId: string; userId: string }
    | { kind: "operator"; userId?: string },
): Promise<{ token: string; expiresAt: Date }> {
  const person = "userId" in owner && owner.userId !== undefined;
  // Only the admin token's operator sessions are bound to the token; a person's are the person's.
  const { token, id } = generateSessionToken(
    owner.kind === "operator" && !person ? ctx.config.adminToken : undefined,
  );
  const expiresAt = new Date(Date.now() + (person ? PERSON_SESSION_IDLE_MS : SESSION_IDLE_MS));
  await ctx.database.db.insert(sessions).values({
    id,
    kind: owner.kind,
    orgId: owner.kind === "org" ? owner.orgId : null,
    apiKeyId: "apiKeyId" in owner ? owner.apiKeyId : null,
    userId: "userId" in owner ? (owner.userId ?? null) : null,
    scopes: "scopes" in owner ? owner.scopes : [],
    expiresAt,
  });
  return { token, expiresAt };
}

/**
 * Resolves a cookie value to its session, or `undefined` when the session is unknown, revoked,
 * expired (idle or absolute), bound to an API key that has since been revoked or has expired, or an operator
 * session opened under an admin token that is no longer the configured one. Slides the idle
 * expiry forward (at most every few minutes) for a session in use.
 */
export async function findSession(
  ctx: AppContext,
  token: string,
): Promise<ConsoleSession | undefined> {
  // Cheap shape check first: anything else was never issued by us.
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const id = sessionIdOf(token);
  const rows = await ctx.database.db
    .select({
      id: sessions.id,
      kind: sessions.kind,
      orgId: sessions.orgId,
      apiKeyId: sessions.apiKeyId,
      scopes: sessions.scopes,
      userId: sessions.userId,
      userEmail: users.email,
      userRole: users.role,
      userRemovedAt: users.removedAt,
      orgScopes: orgs.scopes,
      createdAt: sessions.createdAt,
      expiresAt: sessions.expiresAt,
      keyRevokedAt: apiKeys.revokedAt,
      keyExpiresAt: apiKeys.expiresAt,
      orgName: orgs.name,
      orgSuspendedAt: orgs.suspendedAt,
      plan: orgs.plan,
      walletAddress: wallets.address,
    })
    .from(sessions)
    .leftJoin(apiKeys, eq(apiKeys.id, sessions.apiKeyId))
    .leftJoin(orgs, eq(orgs.id, sessions.orgId))
    .leftJoin(wallets, eq(wallets.orgId, sessions.orgId))
    .leftJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, id), isNull(sessions.revokedAt), gt(sessions.expiresAt, sql`now()`)))
    .limit(1);
  const row = rows[0];
  if (row === undefined) return undefined;
  const now = Date.now();
  const person = row.userId !== null;
  const idleMs = person ? PERSON_SESSION_IDLE_MS : SESSION_IDLE_MS;
  const maxMs = person ? PERSON_SESSION_MAX_MS : SESSION_MAX_MS;
  if (now - row.createdAt.getTime() >= maxMs) return undefined;
  // A person's session ends with the person (removal also revokes it; this covers a race).
  if (person && (row.userRole === null || row.userRemovedAt !== null)) return undefined;
  if (row.kind === "org" && !person && (row.apiKeyId === null || row.keyRevokedAt !== null))
    return undefined;
  if (row.keyExpiresAt !== null && row.keyExpiresAt.getTime() <= now) return undefined;
  if (row.kind !== "org" && row.kind !== "operator") return undefined;
  // A person's role must fit the session's kind (an operator role in an operator session).
  if (person && (row.kind === "operator") !== isOperatorRole(row.userRole!)) return undefined;
  if (row.kind === "operator" && !person && !operatorTokenValid(token, ctx.config.adminToken)) {
    await revokeSession(ctx, id);
    return undefined;
  }

  let expiresAt = row.expiresAt;
  if (now + idleMs - expiresAt.getTime() >= Math.min(SLIDE_RESOLUTION_MS, idleMs / 6)) {
    expiresAt = new Date(Math.min(now + idleMs, row.createdAt.getTime() + maxMs));
    await ctx.database.db.update(sessions).set({ expiresAt }).where(eq(sessions.id, id));
  }
  return {
    id: row.id,
    kind: row.kind,
    orgId: row.orgId,
    orgName: row.orgName,
    plan: row.plan,
    walletAddress: row.walletAddress,
    apiKeyId: row.apiKeyId,
    suspended: row.orgSuspendedAt !== null,
    scopes: scopesOf(row.kind, row.userRole, row.orgScopes, row.scopes),
    grantedScopes: expandScopes(scopesOf(row.kind, row.userRole, row.orgScopes, row.scopes)),
    createdAt: row.createdAt,
    expiresAt,
    userId: row.userId,
    email: row.userEmail,
    role: row.userRole,
  };
}

/** A session's scopes: a key's as stored, a person's by role, none for operator people. */
function scopesOf(
  kind: SessionKind,
  role: PersonRole | null,
  orgScopes: string[] | null,
  keyScopes: string[],
): string[] {
  if (role === null) return keyScopes;
  if (kind === "operator" || isOperatorRole(role)) return [];
  return roleScopes(role, orgScopes ?? []);
}

/** Revokes a session (sign-out). Revoking an unknown or already revoked session is a no-op. */
export async function revokeSession(ctx: AppContext, id: string): Promise<void> {
  await ctx.database.db
    .update(sessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(sessions.id, id), isNull(sessions.revokedAt)));
}

/** One of a person's own sessions, as they see it (never the cookie). */
export interface OwnSession {
  /** The session's row id (the SHA-256 of its cookie): names it, cannot be used as one. */
  sessionId: string;
  createdAt: string;
  expiresAt: string;
  /** The session this request was made with. */
  current: boolean;
}

/** A person's active sessions (unrevoked, unexpired), newest first. */
export async function listPersonSessions(
  ctx: AppContext,
  userId: string,
  currentId: string,
): Promise<OwnSession[]> {
  const rows = await ctx.database.db
    .select({ id: sessions.id, createdAt: sessions.createdAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .where(
      and(
        eq(sessions.userId, userId),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, sql`now()`),
        gt(sessions.createdAt, sql`now() - ${PERSON_SESSION_MAX_MS} * interval '1 millisecond'`),
      ),
    )
    .orderBy(desc(sessions.createdAt));
  return rows.map((row) => ({
    sessionId: row.id,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    current: row.id === currentId,
  }));
}

/** Ends one of a person's own sessions; false when it is not theirs or already ended. */
export async function revokePersonSession(
  ctx: AppContext,
  userId: string,
  sessionId: string,
): Promise<boolean> {
  const ended = await ctx.database.db
    .update(sessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  return ended.length === 1;
}
