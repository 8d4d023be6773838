import { index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./people.js";

/**
 * Operator four-eyes (`operator/operator-requests.ts`, docs/people.md "Operator four-eyes"): a
 * forced transfer, freeze or unfreeze asked for by one operator person (or with the admin token)
 * waits here until a second operator person with role `compliance` or `operator-admin` approves
 * it (then it is carried out, `result` its answer) or rejects it, or it expires.
 */
export const operatorRequests = pgTable(
  "operator_requests",
  {
    id: text("id").primaryKey(), // opr_<hex>
    /** `forced-transfer` | `freeze` | `unfreeze`. */
    kind: text("kind").notNull(),
    tokenId: text("token_id").notNull(),
    /** The validated request body (`reason`, and `toAddress` for a forced transfer). */
    body: jsonb("body").notNull(),
    /** The audit actor who asked: `admin` (the admin token) or `usr_… (email)`. */
    requestedBy: text("requested_by").notNull(),
    /** The operator person who asked (null with the admin token), who may not approve it. */
    requesterUserId: text("requester_user_id").references(() => users.id),
    /** `pending_approval` | `executing` | `executed` | `rejected` | `failed` (expiry: `expiresAt`). */
    state: text("state").notNull().default("pending_approval"),
    decidedBy: text("decided_by"),
    deciderUserId: text("decider_user_id").references(() => users.id),
    result: jsonb("result"),
    error: text("error"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("operator_requests_state_created_idx").on(t.state, t.createdAt)],
);
