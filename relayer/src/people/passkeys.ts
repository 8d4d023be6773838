import { randomBytes } from "node:crypto";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { appendAudit, type AuditOrigin } from "../audit/audit-writer.js";
import type { AppContext } from "../context.js";
import { passkeys, users, webauthnChallenges } from "../db/schema/index.js";
import { AUDIT_ACTIONS } from "../domain/audit.js";
import type { PersonRole } from "../domain/person.js";
import {
  ConflictError,
  InvalidCredentialsError,
  NotFoundError,
  ValidationError,
} from "../errors.js";
import { newId } from "../shared/ids.js";
import {
  assertSignInAllowed,
  clearAccountFailures,
  recordSignInFailure,
} from "./sign-in-throttle.js";
import type { SignedInPerson } from "./people.js";

/**
 * Passkeys (WebAuthn through SimpleWebAuthn; docs/people.md "Passkeys"): a signed-in person
 * registers passkeys, lists and removes their own, and signs in with one alone. A passkey is
 * asked for with user verification required (the authenticator's PIN or biometric), so it is two
 * factors in itself: something held and something known or been, and it cannot be phished (it
 * answers only this relying party). Challenges are kept server-side, single use, 5 minutes.
 */

/** The relying party: the console's host name and origin (`PUBLIC_BASE_URL`, else the request's). */
export interface RelyingParty {
  rpID: string;
  origin: string;
}

/** How long a challenge may be answered. */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** A person keeps at most this many passkeys. */
export const MAX_PASSKEYS = 10;

/** A passkey as its owner sees it. */
export interface PasskeySummary {
  passkeyId: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

async function storeChallenge(
  ctx: AppContext,
  purpose: "register" | "sign-in",
  challenge: string,
  userId: string | null,
): Promise<string> {
  const id = newId("wac");
  await ctx.database.db.insert(webauthnChallenges).values({
    id,
    userId,
    purpose,
    challenge,
    expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
  });
  // Old challenges go as new ones come: the table stays small without a worker.
  await ctx.database.db.execute(sql`DELETE FROM webauthn_challenges WHERE expires_at < now()`);
  return id;
}

/** Takes a challenge once: the row is deleted as it is read (of two answers, one gets it). */
async function takeChallenge(
  ctx: AppContext,
  id: string,
  purpose: "register" | "sign-in",
  userId: string | null,
): Promise<string | undefined> {
  const rows = await ctx.database.db
    .delete(webauthnChallenges)
    .where(
      and(
        eq(webauthnChallenges.id, id),
        eq(webauthnChallenges.purpose, purpose),
        userId === null ? isNull(webauthnChallenges.userId) : eq(webauthnChallenges.userId, userId),
        gt(webauthnChallenges.expiresAt, sql`now()`),
      ),
    )
    .returning({ challenge: webauthnChallenges.challenge });
  return rows[0]?.challenge;
}

/** A person's passkeys, newest first. */
export async function listPasskeys(ctx: AppContext, userId: string): Promise<PasskeySummary[]> {
  const rows = await ctx.database.db
    .select()
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(desc(passkeys.createdAt));
  return rows.map((row) => ({
    passkeyId: row.id,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  }));
}

/**
 * Registration options for the signed-in person (`navigator.credentials.create`): a discoverable
 * credential with user verification required; their passkeys already registered are excluded.
 */
export async function passkeyRegistrationOptions(
  ctx: AppContext,
  person: { userId: string; email: string },
  rp: RelyingParty,
): Promise<{ challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const existing = await ctx.database.db
    .select({ id: passkeys.id, transports: passkeys.transports })
    .from(passkeys)
    .where(eq(passkeys.userId, person.userId));
  const options = await generateRegistrationOptions({
    rpName: "RWA Console",
    rpID: rp.rpID,
    userName: person.email,
    userID: new TextEncoder().encode(person.userId),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  const challengeId = await storeChallenge(ctx, "register", options.challenge, person.userId);
  return { challengeId, options };
}

/**
 * Verifies a registration answer against its challenge and stores the passkey. Appends
 * `user.passkey_added`.
 *
 * @throws ValidationError `Passkey registration failed` (a wrong, used or expired challenge, a
 *   response that does not verify); ConflictError at `MAX_PASSKEYS` or for a passkey already
 *   registered
 */
export async function registerPasskey(
  ctx: AppContext,
  person: { userId: string; email: string; orgId: string | null },
  input: { challengeId: string; response: RegistrationResponseJSON; name: string },
  rp: RelyingParty,
  origin: AuditOrigin,
): Promise<PasskeySummary> {
  const challenge = await takeChallenge(ctx, input.challengeId, "register", person.userId);
  if (challenge === undefined)
    throw new ValidationError("Passkey registration failed", { details: { reason: "challenge" } });
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: true,
    });
  } catch (cause) {
    throw new ValidationError("Passkey registration failed", { cause });
  }
  if (!verified.verified)
    throw new ValidationError("Passkey registration failed", { details: { reason: "verify" } });
  const credential = verified.registrationInfo.credential;
  return ctx.database.db.transaction(async (tx) => {
    const count = await tx.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM passkeys WHERE user_id = ${person.userId}`,
    );
    if (Number(count.rows[0]?.n ?? 0) >= MAX_PASSKEYS)
      throw new ConflictError(`A person keeps at most ${MAX_PASSKEYS} passkeys`);
    const inserted = await tx
      .insert(passkeys)
      .values({
        id: credential.id,
        userId: person.userId,
        publicKey: Buffer.from(credential.publicKey).toString("base64url"),
        counter: credential.counter,
        transports: credential.transports ?? [],
        name: input.name,
      })
      .onConflictDoNothing()
      .returning();
    const row = inserted[0];
    if (row === undefined) throw new ConflictError("This passkey is already registered");
    await appendAudit(tx, origin, {
      orgId: person.orgId,
      action: AUDIT_ACTIONS.userPasskeyAdded,
      target: person.userId,
      changes: { passkeyId: row.id, name: row.name },
    });
    return {
      passkeyId: row.id,
      name: row.name,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: null,
    };
  });
}

/** Removes one of the person's own passkeys; NotFoundError when it is not theirs. */
export async function removePasskey(
  ctx: AppContext,
  person: { userId: string; orgId: string | null },
  passkeyId: string,
  origin: AuditOrigin,
): Promise<{ passkeyId: string; removed: true }> {
  return ctx.database.db.transaction(async (tx) => {
    const removed = await tx
      .delete(passkeys)
      .where(and(eq(passkeys.id, passkeyId), eq(passkeys.userId, person.userId)))
      .returning({ id: passkeys.id, name: passkeys.name });
    if (removed[0] === undefined) throw new NotFoundError("Passkey not found");
    await appendAudit(tx, origin, {
      orgId: person.orgId,
      action: AUDIT_ACTIONS.userPasskeyRemoved,
      target: person.userId,
      changes: { passkeyId, name: removed[0].name },
    });
    return { passkeyId, removed: true as const };
  });
}

/** Sign-in options (`navigator.credentials.get`): any discoverable passkey of this relying party. */
export async function passkeySignInOptions(
  ctx: AppContext,
  rp: RelyingParty,
): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    userVerification: "required",
    challenge: randomBytes(32),
  });
  const challengeId = await storeChallenge(ctx, "sign-in", options.challenge, null);
  return { challengeId, options };
}

/**
 * Signs a person in with a passkey alone: the answer must verify against the challenge, a
 * registered passkey of an active person, with user verification, and a signature counter that
 * moved on (when the authenticator keeps one). Any failure is 401 `Invalid credentials`, counted
 * against the passkey and the address (429 past the limits, as for passwords).
 */
export async function signInWithPasskey(
  ctx: AppContext,
  input: { challengeId: string; response: AuthenticationResponseJSON },
  rp: RelyingParty,
  ip: string,
): Promise<SignedInPerson> {
  const account = `passkey:${input.response.id}`;
  await assertSignInAllowed(ctx.database, account, ip);
  const fail = async (reason: string): Promise<never> => {
    await recordSignInFailure(ctx.database, account, ip);
    throw new InvalidCredentialsError({ details: { reason } });
  };
  const challenge = await takeChallenge(ctx, input.challengeId, "sign-in", null);
  if (challenge === undefined) return fail("challenge");
  const found = await ctx.database.db
    .select({ passkey: passkeys, user: users })
    .from(passkeys)
    .innerJoin(users, eq(users.id, passkeys.userId))
    .where(and(eq(passkeys.id, input.response.id), isNull(users.removedAt)))
    .limit(1);
  const row = found[0];
  if (row === undefined || row.user.passwordHash === null) return fail("unknown passkey");
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: input.response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: {
        id: row.passkey.id,
        publicKey: Buffer.from(row.passkey.publicKey, "base64url"),
        counter: row.passkey.counter,
        transports: row.passkey.transports,
      },
      requireUserVerification: true,
    });
  } catch {
    return fail("verify");
  }
  if (!verified.verified) return fail("verify");
  await ctx.database.db
    .update(passkeys)
    .set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: sql`now()` })
    .where(eq(passkeys.id, row.passkey.id));
  await clearAccountFailures(ctx.database, account);
  return {
    userId: row.user.id,
    orgId: row.user.orgId,
    email: row.user.email,
    role: row.user.role satisfies PersonRole,
  };
}
