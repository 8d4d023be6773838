-- Operator staff are people (people/operator-people.ts, docs/people.md "Operator staff"): a user
-- without an organization, with an operator role. Operator four-eyes (operator/operator-requests.ts):
-- a forced transfer, freeze or unfreeze waits here for a second operator person.
ALTER TABLE "users" ALTER COLUMN "org_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_role_matches_org" CHECK (("org_id" IS NULL) = ("role" IN ('operator-admin', 'compliance', 'support')));
--> statement-breakpoint
CREATE TABLE "operator_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"token_id" text NOT NULL,
	"body" jsonb NOT NULL,
	"requested_by" text NOT NULL,
	"requester_user_id" text REFERENCES "users"("id"),
	"state" text DEFAULT 'pending_approval' NOT NULL,
	"decided_by" text,
	"decider_user_id" text REFERENCES "users"("id"),
	"result" jsonb,
	"error" text,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "operator_requests_state_created_idx" ON "operator_requests" USING btree ("state","created_at");
