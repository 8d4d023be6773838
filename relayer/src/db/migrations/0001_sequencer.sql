DROP INDEX "transactions_live_idx";--> statement-breakpoint
DROP INDEX "transactions_wallet_nonce_live_key";--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "fee_cap" text;--> statement-breakpoint
CREATE INDEX "transactions_wallet_live_idx" ON "transactions" USING btree ("wallet_id","created_at") WHERE "transactions"."state" in ('queued', 'sent');--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_wallet_nonce_live_key" ON "transactions" USING btree ("wallet_id","nonce") WHERE "transactions"."nonce" is not null and "transactions"."state" in ('queued', 'sent', 'confirmed');--> statement-breakpoint
ALTER TABLE "transactions" DROP COLUMN "locked_by";--> statement-breakpoint
ALTER TABLE "transactions" DROP COLUMN "locked_until";--> statement-breakpoint
ALTER TABLE "transactions" DROP COLUMN "running_since";