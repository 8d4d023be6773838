CREATE TABLE "wallet_alerts" (
	"org_id" text PRIMARY KEY NOT NULL REFERENCES "orgs"("id"),
	"low_balance_wei" numeric(78, 0),
	"low" boolean DEFAULT false NOT NULL,
	"observed_block" bigint,
	"recheck" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_balances" (
	"org_id" text NOT NULL REFERENCES "orgs"("id"),
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"balance_wei" numeric(78, 0) NOT NULL,
	"low" boolean NOT NULL,
	CONSTRAINT "wallet_balances_pkey" PRIMARY KEY ("org_id", "block_number")
);
--> statement-breakpoint
CREATE INDEX "wallet_balances_block_idx" ON "wallet_balances" ("block_number");
--> statement-breakpoint
CREATE INDEX "wallet_alerts_watch_idx" ON "wallet_alerts" ("org_id") WHERE "low" OR "recheck" OR "observed_block" IS NULL;
