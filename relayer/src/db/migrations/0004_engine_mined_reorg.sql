DROP INDEX "transactions_wallet_live_idx";--> statement-breakpoint
DROP INDEX "transactions_wallet_nonce_live_key";--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "reopened_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "transactions_wallet_live_idx" ON "transactions" USING btree ("wallet_id","created_at") WHERE "transactions"."state" in ('queued', 'sent', 'mined');--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_wallet_nonce_live_key" ON "transactions" USING btree ("wallet_id","nonce") WHERE "transactions"."nonce" is not null and "transactions"."state" in ('queued', 'sent', 'mined', 'confirmed');