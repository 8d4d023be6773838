-- Each organization's policy (policy/org-policy.ts): destinations, limits and approval rules.
CREATE TABLE "org_policies" (
	"org_id" text PRIMARY KEY NOT NULL REFERENCES "orgs"("id"),
	"policy" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- An organization's transfers of the last 24 hours, for the policy's daily limit.
CREATE INDEX "transactions_org_kind_created_idx" ON "transactions" USING btree ("org_id","kind","created_at");
