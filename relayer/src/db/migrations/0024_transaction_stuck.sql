-- A sent write the engine marked stuck (re-priced up to its fee cap and still not mined).
ALTER TABLE "transactions" ADD COLUMN "stuck_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "stuck_reason" text;
