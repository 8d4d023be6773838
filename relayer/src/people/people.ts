import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../context.js";
import type { DbTransaction } from "../db/client.js";
import { invitations, sessions, users } from "../db/schema/index.js";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import { isOperatorRole, type OrgRole, type PersonRole } from "../domain/person.js";
import {
  ConflictError,
  ForbiddenError,
  GoneError,
  InvalidCredentialsError,
  NotFoundError,
} from "../errors.js";
import { newId } from "../shared/ids.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import {
  assertSignInAllowed,
  clearAccountFailures,
  recordSignInFailure,
} from "./sign-in-throttle.js";
import { newTotpSecret, totpStep } from "./totp.js";

/**
 * The people of an organization (docs/people.md): invitations, accepting one (password and TOTP
 * enrollment), signing in, listing, changing a role and removing a person. Sessions themselves
 * are `auth/session-store.ts`'s; this module ends a person's sessions when their role changes or
 * they are removed.
 */

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

/** A person as listed (never a hash or a secret). */
export interface PersonSummary {
  userId: string;
  email: string;
  role: OrgRole;
  /** `invited`: the invitation is not accepted yet; `active`: signed up with password and TOTP. */
  status: "invited" | "active";
  createdAt: string;
}

/** A new person and their invitation link (shown once). */
export interface InvitedPerson<Role extends PersonRole = OrgRole> {
  userId: string;
  email: string;
  role: Role;
  invitation: { url: string; expiresAt: string };
}

/** Who invites: an organization's person (with their role) or operator staff / the service. */
export type Inviter = { role: OrgRole } | "operator";

/** Whether an active person already has this email (in any organization). */
export async function emailTaken(ctx: AppContext, email: string): Promise<boolean> {
  const rows = await ctx.database.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, normalizeEmail(email)), isNull(users.removedAt)))
    .limit(1);
  return rows.length > 0;
}

/** Lower-cased, trimmed: the form emails are stored and compared in. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const tokenHash = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

/** The invitation URL: the console's accept page with the token in `?token=`. */
function invitationUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/console/accept-invitation?token=${token}`;
}

function summarize(row: typeof users.$inferSelect): PersonSummary {
  return {
    userId: row.id,
    email: row.email,
    role: row.role as OrgRole,
    status: row.passwordHash === null ? "invited" : "active",
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Invites a person into `orgId` (null: operator staff, with an operator role) with `role`, in `tx` (registration passes its own transaction):
 * a user row without password, and a single-use invitation valid 72 h whose token only the
 * returned URL holds (the database keeps its SHA-256). Appends `user.invited`.
 *
 * @throws ForbiddenError when an admin invites an owner; ConflictError when an active person
 *   already has the email
 */
export async function invitePersonIn<Role extends PersonRole>(
  tx: DbTransaction,
  orgId: string | null,
  input: { email: string; role: Role },
  inviter: Inviter,
  origin: AuditOrigin,
  baseUrl: string,
): Promise<InvitedPerson<Role>> {
  // Operator staff belong to no organization, and nobody else holds an operator role.
  if ((orgId === null) !== isOperatorRole(input.role))
    throw new Error(`role ${input.role} does not fit organization ${orgId ?? "(none)"}`);
  if (inviter !== "operator" && inviter.role !== "owner" && input.role === "owner")
    throw new ForbiddenError("Only an owner can invite an owner");
  const email = normalizeEmail(input.email);
  const userId = newId("usr");
  const inserted = await tx
    .insert(users)
    .values({ id: userId, orgId, email, role: input.role })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (inserted.length === 0) throw new ConflictError("A person with this email already exists");
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + INVITATION_TTL_MS);
  await tx
    .insert(invitations)
    .values({ id: newId("inv"), userId, tokenHash: tokenHash(token), expiresAt });
  await appendAudit(tx, origin, {
    orgId,
    action: AUDIT_ACTIONS.userInvited,
    target: userId,
    changes: { email, role: input.role, expiresAt: expiresAt.toISOString() },
  });
  return {
    userId,
    email,
    role: input.role,
    invitation: { url: invitationUrl(baseUrl, token), expiresAt: expiresAt.toISOString() },
  };
}

/** `invitePersonIn` in a transaction of its own. */
export async function invitePerson(
  ctx: AppContext,
  orgId: string,
  input: { email: string; role: OrgRole },
  inviter: Inviter,
  origin: AuditOrigin,
  baseUrl: string,
): Promise<InvitedPerson> {
  return ctx.database.db.transaction((tx) =>
    invitePersonIn(tx, orgId, input, inviter, origin, baseUrl),
  );
}

/**
 * Accepts an invitation: sets the person's password and enrolls TOTP; the invitation is used.
 * The TOTP secret is answered here only (stored sealed under the master key).
 *
 * @throws NotFoundError `Invitation not found`; GoneError (410) `Invitation already used` or
 *   `Invitation expired` (also when the person was removed); ValidationError for a password
 *   outside 12-256 characters (the invitation stays usable)
 */
export async function acceptInvitation(
  ctx: AppContext,
  token: string,
  password: string,
  origin: AuditOrigin,
): Promise<{ email: string; totp: { secret: string; otpauthUri: string } }> {
  const hash = tokenHash(token);
  const found = await ctx.database.db
    .select({ invitation: invitations, user: users })
    .from(invitations)
    .innerJoin(users, eq(users.id, invitations.userId))
    .where(eq(invitations.tokenHash, hash))
    .limit(1);
  const row = found[0];
  if (row === undefined) throw new NotFoundError("Invitation not found");
  const gone = (invitation: typeof row.invitation, removed: Date | null) => {
    if (invitation.usedAt !== null) return new GoneError("Invitation already used");
    if (invitation.expiresAt.getTime() <= Date.now() || removed !== null)
      return new GoneError("Invitation expired");
    return undefined;
  };
  const early = gone(row.invitation, row.user.removedAt);
  if (early !== undefined) throw early;
  const passwordHash = await hashPassword(password);
  const totp = newTotpSecret(row.user.email);
  const userId = row.user.id;
  await ctx.database.db.transaction(async (tx) => {
    // Used once: of two accepts racing, one updates the row, the other finds it used.
    const used = await tx
      .update(invitations)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(invitations.id, row.invitation.id),
          isNull(invitations.usedAt),
          sql`${invitations.expiresAt} > now()`,
        ),
      )
      .returning({ id: invitations.id });
    if (used.length === 0) throw new GoneError("Invitation already used");
    const updated = await tx
      .update(users)
      .set({
        passwordHash,
        totpSecretSealed: ctx.keyStore.seal(totp.secret, userId),
        totpLastStep: null,
      })
      .where(and(eq(users.id, userId), isNull(users.removedAt)))
      .returning({ id: users.id });
    if (updated.length === 0) throw new GoneError("Invitation expired");
    await appendAudit(tx, personOrigin(origin, userId, row.user.email), {
      orgId: row.user.orgId,
      action: AUDIT_ACTIONS.userInvitationAccepted,
      target: userId,
      changes: { email: row.user.email, totp: "enrolled" },
    });
  });
  return { email: row.user.email, totp };
}

/** The audit origin of an act by a person: their user id and their email at the time. */
export function personOrigin(origin: AuditOrigin, userId: string, email: string): AuditOrigin {
  return { ...origin, actor: `${userId} (${email})` };
}

/** A person who signed in: an organization's (`orgId`) or operator staff (`orgId` null). */
export interface SignedInPerson {
  userId: string;
  orgId: string | null;
  email: string;
  role: PersonRole;
}

/**
 * Signs a person in with email, password and a TOTP code. Unknown email, wrong password, wrong
 * code and a code already used all answer the same 401 `Invalid credentials` (the password is
 * verified against a dummy hash when there is no account, so the work is the same). Throttled per
 * account and per address (429 with Retry-After, `sign-in-throttle.ts`).
 *
 * @throws InvalidCredentialsError; RateLimitError
 */
export async function signInPerson(
  ctx: AppContext,
  input: { email: string; password: string; totp: string },
  ip: string,
): Promise<SignedInPerson> {
  const email = normalizeEmail(input.email);
  await assertSignInAllowed(ctx.database, email, ip);
  const rows = await ctx.database.db
    .select()
    .from(users)
    .where(and(eq(users.email, email), isNull(users.removedAt)))
    .limit(1);
  const user = rows[0];
  const passwordOk = await verifyPassword(input.password, user?.passwordHash ?? undefined);
  let accepted = false;
  if (passwordOk && user !== undefined && user.totpSecretSealed !== null) {
    const secret = ctx.keyStore.open(user.totpSecretSealed, user.id);
    const step = totpStep(secret, user.email, input.totp);
    if (step !== undefined) {
      // A code is accepted once: only a step later than the last accepted one moves it on.
      const moved = await ctx.database.db
        .update(users)
        .set({ totpLastStep: step })
        .where(
          and(
            eq(users.id, user.id),
            sql`(${users.totpLastStep} IS NULL OR ${users.totpLastStep} < ${step})`,
          ),
        )
        .returning({ id: users.id });
      accepted = moved.length === 1;
    }
  }
  if (!accepted || user === undefined) {
    await recordSignInFailure(ctx.database, email, ip);
    throw new InvalidCredentialsError({ details: { email } });
  }
  await clearAccountFailures(ctx.database, email);
  return { userId: user.id, orgId: user.orgId, email: user.email, role: user.role };
}

/** The organization's people (removed ones left out), oldest first. */
export async function listPeople(ctx: AppContext, orgId: string): Promise<PersonSummary[]> {
  const rows = await ctx.database.db
    .select()
    .from(users)
    .where(and(eq(users.orgId, orgId), isNull(users.removedAt)))
    .orderBy(asc(users.createdAt), asc(users.id));
  return rows.map(summarize);
}

/** Ends every session of a person (role changed, removed). */
async function endSessions(tx: DbTransaction, userId: string): Promise<void> {
  await tx
    .update(sessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
}

/** The person `userId` of `orgId`, locked; 404 when another org's, unknown or removed. */
async function lockedPerson(tx: DbTransaction, orgId: string, userId: string) {
  // The org's people are locked together: two owners demoting each other queue.
  await tx.execute(sql`SELECT id FROM users WHERE org_id = ${orgId} FOR UPDATE`);
  const rows = await tx
    .select()
    .from(users)
    .where(and(eq(users.id, userId), eq(users.orgId, orgId), isNull(users.removedAt)))
    .limit(1);
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Person not found");
  return row;
}

async function otherOwners(tx: DbTransaction, orgId: string, userId: string): Promise<number> {
  const result = await tx.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM users
         WHERE org_id = ${orgId} AND role = 'owner' AND removed_at IS NULL
           AND password_hash IS NOT NULL AND id <> ${userId}`,
  );
  return Number(result.rows[0]?.n ?? 0);
}

/**
 * Changes a person's role; their sessions end (they sign in again under the new role).
 *
 * @throws NotFoundError; ConflictError when it would leave the organization without an active
 *   owner
 */
export async function changeRole(
  ctx: AppContext,
  orgId: string,
  userId: string,
  role: OrgRole,
  origin: AuditOrigin,
): Promise<PersonSummary> {
  return ctx.database.db.transaction(async (tx) => {
    const person = await lockedPerson(tx, orgId, userId);
    if (person.role === role) return summarize(person);
    if (person.role === "owner" && (await otherOwners(tx, orgId, userId)) === 0)
      throw new ConflictError("An organization keeps at least one owner");
    const [updated] = await tx.update(users).set({ role }).where(eq(users.id, userId)).returning();
    await endSessions(tx, userId);
    await appendAudit(tx, origin, {
      orgId,
      action: AUDIT_ACTIONS.userRoleChanged,
      target: userId,
      changes: { email: person.email, role: { from: person.role, to: role } },
    });
    return summarize(updated!);
  });
}

/**
 * Removes a person: their sessions end, their pending invitation stops working, the row stays
 * (marked removed) so the audit log's ids still resolve.
 *
 * @throws NotFoundError; ConflictError for the organization's last active owner
 */
export async function removePerson(
  ctx: AppContext,
  orgId: string,
  userId: string,
  origin: AuditOrigin,
): Promise<{ userId: string; removed: true }> {
  return ctx.database.db.transaction(async (tx) => {
    const person = await lockedPerson(tx, orgId, userId);
    if (person.role === "owner" && (await otherOwners(tx, orgId, userId)) === 0)
      throw new ConflictError("An organization keeps at least one owner");
    await tx
      .update(users)
      .set({ removedAt: sql`now()` })
      .where(eq(users.id, userId));
    await endSessions(tx, userId);
    await appendAudit(tx, origin, {
      orgId,
      action: AUDIT_ACTIONS.userRemoved,
      target: userId,
      changes: { email: person.email, role: person.role },
    });
    return { userId, removed: true as const };
  });
}
