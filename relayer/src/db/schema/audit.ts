import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * The audit log: one row per management or operator action, hash-chained (relayer/src/audit/).
 * `id` is gapless (1, 2, 3, ...: taken from `audit_chain_head` in the appending transaction), and
 * `hash` is the SHA-256 of the row's canonical encoding, `prev_hash` included, so an edited,
 * removed or inserted row breaks the chain (`npm run audit:verify`). `org_id` has no foreign key:
 * the record outlives whatever it names. `at` keeps milliseconds, exactly what was hashed.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "bigint" }).primaryKey(),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull(),
    /** An API key id (`key_...`), `admin` (the admin token or an operator session), or `system`. */
    actor: text("actor").notNull(),
    orgId: text("org_id"),
    action: text("action").notNull(),
    target: text("target"),
    requestId: text("request_id"),
    sourceAddress: text("source_address"),
    /** The changed fields (never a secret). */
    changes: jsonb("changes").notNull().default({}),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [
    // Two rows continuing the same link would be a fork: the database refuses the second.
    uniqueIndex("audit_log_prev_hash_key").on(t.prevHash),
    index("audit_log_org_id_idx").on(t.orgId, t.id),
    index("audit_log_action_idx").on(t.action, t.id),
  ],
);

/**
 * The chain's head, one row: the last row's id and hash. Appenders lock it (an UPDATE) for the
 * rest of their transaction, which serialises every relayer process on one chain.
 */
export const auditChainHead = pgTable(
  "audit_chain_head",
  {
    id: smallint("id").primaryKey().default(1),
    lastId: bigint("last_id", { mode: "bigint" }).notNull(),
    lastHash: text("last_hash").notNull(),
  },
  (t) => [check("audit_chain_head_single_row", sql`${t.id} = 1`)],
);
