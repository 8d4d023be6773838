-- Recovery (docs/recovery.md "After a restore"): the custodial wallets whose rows must be made to
-- agree with the chain before the service takes their writes (a restore writes one row per
-- wallet, from the backup's chain head), and the idempotency records rebuilt from the tags of
-- the transactions the chain holds (the key itself is not on chain: its keyed hash is).
CREATE TABLE "chain_reconciliations" (
  "wallet_id" text PRIMARY KEY NOT NULL REFERENCES "wallets"("id"),
  "from_block" bigint NOT NULL,
  "reason" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recovered_idempotency_keys" (
  "org_id" text NOT NULL REFERENCES "orgs"("id"),
  "key_tag" text NOT NULL,
  "request_tag" text NOT NULL,
  "transaction_id" text NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  PRIMARY KEY ("org_id", "key_tag")
);
