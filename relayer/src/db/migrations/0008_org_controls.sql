ALTER TABLE "orgs" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "orgs_created_at_id_idx" ON "orgs" USING btree ("created_at","id");
