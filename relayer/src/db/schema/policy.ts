import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { OrgPolicy } from "../../domain/policy.js";
import { orgs } from "./orgs.js";

/**
 * Each organization's policy (`policy/org-policy.ts`, docs/policy.md): destinations, limits and
 * approval rules, as `PUT /api/enterprise/policy` validated them. No row: the default policy (no
 * restriction). The row is also the lock that serialises an organization's transfers while the
 * policy is checked at record time, so a daily limit cannot be overshot by concurrent writes.
 */
export const orgPolicies = pgTable("org_policies", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => orgs.id),
  policy: jsonb("policy").$type<OrgPolicy>().notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
