CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_prefix" text NOT NULL,
	"label" text,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "orgs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"plan" text DEFAULT 'free' NOT NULL,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"org_id" text,
	"api_key_id" text,
	"scopes" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallets" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"address" text NOT NULL,
	"encrypted_key" text NOT NULL,
	"key_store_version" integer DEFAULT 1 NOT NULL,
	"next_nonce" bigint,
	"is_registrar" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"encrypted_secret" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_reason" text,
	"failing_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "asset_types" (
	"type_id" text PRIMARY KEY NOT NULL,
	"type_index" integer NOT NULL,
	"name" text NOT NULL,
	"registrar" text NOT NULL,
	"tx_hash" text NOT NULL,
	"block_number" bigint NOT NULL,
	"registered_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "assets" (
	"token_id" numeric(78, 0) PRIMARY KEY NOT NULL,
	"type_id" text NOT NULL,
	"owner" text NOT NULL,
	"minter" text NOT NULL,
	"stake_wei" numeric(78, 0) NOT NULL,
	"cid" text NOT NULL,
	"password_hash" text NOT NULL,
	"mint_tx_hash" text NOT NULL,
	"mint_block" bigint NOT NULL,
	"minted_at" timestamp with time zone NOT NULL,
	"updated_block" bigint NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"redeemed" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chain_logs" (
	"block_number" bigint NOT NULL,
	"log_index" integer NOT NULL,
	"block_hash" text NOT NULL,
	"tx_hash" text NOT NULL,
	"block_timestamp" bigint NOT NULL,
	"kind" text NOT NULL,
	"token_id" numeric(78, 0),
	"listing_id" numeric(78, 0),
	"args" jsonb NOT NULL,
	CONSTRAINT "chain_logs_block_number_log_index_pk" PRIMARY KEY("block_number","log_index")
);
--> statement-breakpoint
CREATE TABLE "indexed_blocks" (
	"number" bigint PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"parent_hash" text NOT NULL,
	"timestamp" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "indexer_cursor" (
	"id" text PRIMARY KEY NOT NULL,
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "listings" (
	"listing_id" numeric(78, 0) PRIMARY KEY NOT NULL,
	"token_id" numeric(78, 0) NOT NULL,
	"seller" text NOT NULL,
	"buyer" text,
	"price_wei" numeric(78, 0) NOT NULL,
	"state" text NOT NULL,
	"listed_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	"create_tx_hash" text NOT NULL,
	"close_tx_hash" text,
	"created_block" bigint NOT NULL,
	"updated_block" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sales" (
	"block_number" bigint NOT NULL,
	"log_index" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"listing_id" numeric(78, 0) NOT NULL,
	"token_id" numeric(78, 0) NOT NULL,
	"seller" text NOT NULL,
	"buyer" text NOT NULL,
	"price_wei" numeric(78, 0) NOT NULL,
	"sold_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sales_block_number_log_index_pk" PRIMARY KEY("block_number","log_index")
);
--> statement-breakpoint
CREATE TABLE "transfers" (
	"block_number" bigint NOT NULL,
	"log_index" integer NOT NULL,
	"tx_hash" text NOT NULL,
	"token_id" numeric(78, 0) NOT NULL,
	"from_address" text NOT NULL,
	"to_address" text NOT NULL,
	"transferred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "transfers_block_number_log_index_pk" PRIMARY KEY("block_number","log_index")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" text NOT NULL,
	"attempt_no" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"status_code" integer,
	"latency_ms" integer NOT NULL,
	"response_snippet" text,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"webhook_id" text NOT NULL,
	"org_id" text NOT NULL,
	"event_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"last_status_code" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"block_number" bigint,
	"block_hash" text,
	"tx_hash" text,
	"log_index" integer,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"released_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "asset_metadata" (
	"cid" text PRIMARY KEY NOT NULL,
	"json" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"org_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"transaction_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"wallet_id" text NOT NULL,
	"parent_id" text,
	"item_index" integer,
	"kind" text NOT NULL,
	"mode" text DEFAULT 'sync' NOT NULL,
	"request_hash" text NOT NULL,
	"from_address" text NOT NULL,
	"to_address" text,
	"data" text,
	"value" text DEFAULT '0' NOT NULL,
	"gas_limit" text,
	"max_fee_per_gas" text,
	"max_priority_fee_per_gas" text,
	"nonce" bigint,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"receipt" jsonb,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"result" jsonb,
	"error" text,
	"error_kind" text,
	"last_error" text,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"running_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"mined_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"replaced_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."webhook_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transactions" ADD CONSTRAINT "transactions_wallet_id_wallets_id_fk" FOREIGN KEY ("wallet_id") REFERENCES "public"."wallets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_org_id_idx" ON "api_keys" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "sessions_expires_at_idx" ON "sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "wallets_org_id_key" ON "wallets" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "wallets_address_key" ON "wallets" USING btree (lower("address"));--> statement-breakpoint
CREATE INDEX "webhooks_org_id_idx" ON "webhooks" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "assets_owner_idx" ON "assets" USING btree ("owner","token_id");--> statement-breakpoint
CREATE INDEX "assets_type_id_idx" ON "assets" USING btree ("type_id","token_id");--> statement-breakpoint
CREATE INDEX "chain_logs_token_id_idx" ON "chain_logs" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "chain_logs_listing_id_idx" ON "chain_logs" USING btree ("listing_id");--> statement-breakpoint
CREATE INDEX "listings_token_id_idx" ON "listings" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "listings_seller_idx" ON "listings" USING btree ("seller","listing_id");--> statement-breakpoint
CREATE INDEX "listings_state_idx" ON "listings" USING btree ("state","listing_id");--> statement-breakpoint
CREATE INDEX "listings_active_token_idx" ON "listings" USING btree ("token_id") WHERE state = 'active';--> statement-breakpoint
CREATE INDEX "sales_listing_id_idx" ON "sales" USING btree ("listing_id");--> statement-breakpoint
CREATE INDEX "transfers_token_id_idx" ON "transfers" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt_no");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_webhook_event_key" ON "webhook_deliveries" USING btree ("webhook_id","event_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_webhook_idx" ON "webhook_deliveries" USING btree ("webhook_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_status_idx" ON "webhook_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "webhook_events_pending_idx" ON "webhook_events" USING btree ("status","block_number");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_keys_org_key" ON "idempotency_keys" USING btree ("org_id","key");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "transactions_org_state_idx" ON "transactions" USING btree ("org_id","state");--> statement-breakpoint
CREATE INDEX "transactions_parent_idx" ON "transactions" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "transactions_live_idx" ON "transactions" USING btree ("state","locked_until") WHERE "transactions"."state" in ('queued', 'sent', 'mined');--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_wallet_nonce_live_key" ON "transactions" USING btree ("wallet_id","nonce") WHERE "transactions"."nonce" is not null and "transactions"."state" in ('queued', 'sent', 'mined', 'confirmed');