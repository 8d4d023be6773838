-- A write's deadline (validForSeconds): not sent by then, it ends expired without being sent.
ALTER TABLE "transactions" ADD COLUMN "valid_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "expired_at" timestamp with time zone;
