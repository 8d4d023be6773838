import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Fixed-window request counters shared by every relayer process. `key` names the limit, the
 * subject and the window (`key:<keyId>:m`, `org:<orgId>:d`, ...); a row whose `expires_at` has
 * passed is reset by the next hit (atomic upsert, see `limits/rate-limiter.ts`).
 */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});
