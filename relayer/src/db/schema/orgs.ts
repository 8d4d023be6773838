import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";

/**
 * Organizations onboarded by operator staff. `scopes` is the ceiling for every key of the org.
 * `suspendedAt` is set while operator staff hold the org (`orgs/controls.ts`): its keys
 * and sessions get 403 and its queued writes wait (docs/api-decisions.md "Operator controls").
 */
export const orgs = pgTable(
  "orgs",
  {
    id: text("id").primaryKey(), // org_<hex>
    name: text("name").notNull(),
    plan: text("plan").notNull().default("free"),
    scopes: text("scopes").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    suspendedAt: timestamp("suspended_at", { withTimezone: true }),
  },
  (t) => [index("orgs_created_at_id_idx").on(t.createdAt, t.id)],
);

/**
 * One custodial wallet per organization. `signerBackend` says where its key lives: `local` (the
 * private key sealed by `wallets/key-store.ts` in `encryptedKey`) or `pkcs11` (the key inside the
 * HSM token; `encryptedKey` then holds its PKCS#11 URI, `wallets/pkcs11-key-ref.ts`). A wallet
 * keeps the backend it was made in. `nextNonce` is owned by the transaction sequencer that holds the
 * wallet's lease (`leaseOwner` until `leaseUntil`; one process at a time); NULL means "unknown,
 * resync from the chain".
 */
export const wallets = pgTable(
  "wallets",
  {
    id: text("id").primaryKey(), // wal_<hex>
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    address: text("address").notNull(), // checksummed 0x address
    encryptedKey: text("encrypted_key").notNull(), // KeyStore envelope, or a PKCS#11 URI
    signerBackend: text("signer_backend").notNull().default("local"), // local | pkcs11
    keyStoreVersion: integer("key_store_version").notNull().default(1),
    nextNonce: bigint("next_nonce", { mode: "bigint" }),
    isRegistrar: boolean("is_registrar").notNull().default(false),
    /** The relayer process that sequences this wallet's writes, until `leaseUntil`. */
    leaseOwner: text("lease_owner"),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("wallets_org_id_key").on(t.orgId),
    uniqueIndex("wallets_address_key").on(sql`lower(${t.address})`),
  ],
);

/** API keys: only the SHA-256 of the key string is stored. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(), // key_<hex>
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    keyHash: text("key_hash").notNull(), // hex sha256 of the full key string
    keyPrefix: text("key_prefix").notNull(), // first characters, for display only (rwa_live_ab12)
    label: text("label"),
    scopes: text("scopes").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** After this instant the key answers 401 `API key expired`; NULL: it never expires. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /**
     * Where the key may be used from: canonical CIDR ranges (`auth/allowed-ips.ts`); a request
     * from elsewhere is 403. NULL: anywhere.
     */
    allowedIps: text("allowed_ips").array(),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_key").on(t.keyHash),
    index("api_keys_org_id_idx").on(t.orgId),
  ],
);

/** Webhook registrations. The secret is stored encrypted and returned only at creation. */
export const webhooks = pgTable(
  "webhooks",
  {
    id: text("id").primaryKey(), // wh_<hex>
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    encryptedSecret: text("encrypted_secret").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    disabledReason: text("disabled_reason"),
    failingSince: timestamp("failing_since", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    /** The secret before the last rotation, still signing deliveries until `previousSecretExpiresAt`. */
    previousEncryptedSecret: text("previous_encrypted_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    /** Circuit breaker (webhooks/circuit-breaker.ts): timeouts in a row, and the hold they caused. */
    consecutiveTimeouts: integer("consecutive_timeouts").notNull().default(0),
    circuitOpenUntil: timestamp("circuit_open_until", { withTimezone: true }),
    circuitOpenedCount: integer("circuit_opened_count").notNull().default(0),
    circuitReason: text("circuit_reason"),
  },
  (t) => [index("webhooks_org_id_idx").on(t.orgId)],
);

/**
 * Console sessions (httpOnly cookie -> row). `id` is the SHA-256 of the cookie value.
 * `kind` is `org` (bound to an org and a key's scopes) or `operator` (admin token).
 */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    orgId: text("org_id").references(() => orgs.id),
    apiKeyId: text("api_key_id").references(() => apiKeys.id),
    /** A person's session (`users.id`; no foreign key here: people.ts imports this file). */
    userId: text("user_id"),
    scopes: text("scopes").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [index("sessions_expires_at_idx").on(t.expiresAt)],
);

/** Small key/value store for service-wide settings (e.g. a check value for the master key). */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
