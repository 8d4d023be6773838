import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { PersonRole } from "../../domain/person.js";
import { orgs } from "./orgs.js";

/**
 * The people of an organization (`people/`, docs/people.md): an email, a role, and once their
 * invitation is accepted a password (scrypt, `people/passwords.ts`) and a TOTP secret (sealed by
 * the key store under the master key, context = the user id). `totpLastStep` is the time step of
 * the last TOTP code accepted: a code is accepted once. Operator staff are people too, without
 * an organization (docs/people.md "Operator staff"). A removed person keeps the row
 * (`removedAt`), so the audit log's user ids still resolve; an active email is unique across the
 * service (it signs in without naming an organization).
 */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(), // usr_<hex>
    /** Null for operator staff (an operator role; `users_role_matches_org` holds the two together). */
    orgId: text("org_id").references(() => orgs.id),
    email: text("email").notNull(), // lower-case
    role: text("role").$type<PersonRole>().notNull(),
    passwordHash: text("password_hash"),
    totpSecretSealed: text("totp_secret_sealed"),
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    removedAt: timestamp("removed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("users_email_active_key")
      .on(t.email)
      .where(sql`${t.removedAt} is null`),
    index("users_org_id_idx").on(t.orgId),
    check(
      "users_role_matches_org",
      sql`(${t.orgId} IS NULL) = (${t.role} IN ('operator-admin', 'compliance', 'support'))`,
    ),
  ],
);

/**
 * Invitations: a single-use link valid 72 h (`people/invitations.ts`). Only the SHA-256 of its
 * token is kept; the link is shown once, to the inviter.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(), // inv_<hex>
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("invitations_token_hash_key").on(t.tokenHash),
    index("invitations_user_id_idx").on(t.userId),
  ],
);

/**
 * Failed sign-ins, for throttling per account and per address (`people/sign-in-throttle.ts`).
 * `subject` is `email:<lower-case email>` or `ip:<address>`.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    subject: text("subject").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("sign_in_failures_subject_at_idx").on(t.subject, t.at)],
);

/**
 * A person's passkeys (WebAuthn credentials, `people/passkeys.ts`): the credential id
 * (base64url), its COSE public key (base64url), the signature counter and transports. A passkey
 * is the person's other second factor, and signs them in alone (docs/people.md "Passkeys").
 */
export const passkeys = pgTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    publicKey: text("public_key").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: text("transports")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    name: text("name").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [index("passkeys_user_id_idx").on(t.userId)],
);

/**
 * WebAuthn challenges handed out (`people/passkeys.ts`): `register` (bound to the signed-in
 * person) or `sign-in` (to nobody yet); used once, valid 5 minutes.
 */
export const webauthnChallenges = pgTable("webauthn_challenges", {
  id: text("id").primaryKey(),
  userId: text("user_id").references(() => users.id),
  purpose: text("purpose").$type<"register" | "sign-in">().notNull(),
  challenge: text("challenge").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});
