CREATE TABLE "token_metadata" (
	"token_id" numeric(78, 0) PRIMARY KEY NOT NULL,
	"mint_tx_hash" text NOT NULL,
	"cid" text NOT NULL,
	"json" text NOT NULL,
	"pinned_at" timestamp with time zone,
	"pin_target" text,
	"pin_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "token_metadata_cid_idx" ON "token_metadata" USING btree ("cid");--> statement-breakpoint
CREATE INDEX "transactions_attempt_hashes_idx" ON "transactions" USING gin ("attempts" jsonb_path_ops);