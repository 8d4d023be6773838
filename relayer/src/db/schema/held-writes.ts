import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { orgs } from "./orgs.js";

/** One person's approval of a held write. */
export interface HeldApproval {
  userId: string;
  email: string;
  at: string;
}

/**
 * Writes an approval rule of the organization's policy holds (`policy/approvals.ts`,
 * docs/policy.md "Approvals"): the validated request, kept until enough people approve (then it
 * is recorded as a transaction with the same id), someone rejects it, or it expires. Nothing of
 * a held write is signed.
 */
export const heldWrites = pgTable(
  "held_writes",
  {
    id: text("id").primaryKey(), // tx_<hex>: the transaction id it is recorded under
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    kind: text("kind").notNull(),
    body: jsonb("body").notNull(),
    idempotencyKey: text("idempotency_key"),
    /** The audit actor who asked (a key id, or `usr_… (email)`). */
    requestedBy: text("requested_by").notNull(),
    /** The person who asked (a console session), who may not approve it. */
    requesterUserId: text("requester_user_id"),
    approvers: integer("approvers").notNull(),
    approvals: jsonb("approvals").$type<HeldApproval[]>().notNull().default([]),
    /** `pending_approval` | `approved` | `rejected` | `failed` (expiry is read from `expiresAt`). */
    state: text("state").notNull().default("pending_approval"),
    decidedBy: text("decided_by"),
    error: text("error"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("held_writes_org_state_idx").on(t.orgId, t.state),
    uniqueIndex("held_writes_idempotency_key")
      .on(t.orgId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);
