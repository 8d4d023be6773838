-- Compliance controls (ERC-7943, README "Compliance controls"): the read model of frozen tokens,
-- restricted asset types, the allowlist and the market pause, all derived from chain logs.
ALTER TABLE "assets" ADD COLUMN "frozen" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "frozen_reason" text;--> statement-breakpoint
ALTER TABLE "asset_types" ADD COLUMN "restricted" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE TABLE "allowlist" (
	"address" text PRIMARY KEY NOT NULL,
	"tx_hash" text NOT NULL,
	"block_number" bigint NOT NULL,
	"added_at" timestamp with time zone NOT NULL
);--> statement-breakpoint
CREATE TABLE "market_state" (
	"id" text PRIMARY KEY NOT NULL,
	"paused" boolean NOT NULL,
	"reason" text NOT NULL,
	"changed_by" text NOT NULL,
	"tx_hash" text NOT NULL,
	"block_number" bigint NOT NULL,
	"changed_at" timestamp with time zone NOT NULL
);
