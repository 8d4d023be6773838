-- Writes held for approval by the organization's policy (policy/approvals.ts).
CREATE TABLE "held_writes" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL REFERENCES "orgs"("id"),
	"kind" text NOT NULL,
	"body" jsonb NOT NULL,
	"idempotency_key" text,
	"requested_by" text NOT NULL,
	"requester_user_id" text,
	"approvers" integer NOT NULL,
	"approvals" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"state" text DEFAULT 'pending_approval' NOT NULL,
	"decided_by" text,
	"error" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "held_writes_org_state_idx" ON "held_writes" USING btree ("org_id","state");
--> statement-breakpoint
CREATE UNIQUE INDEX "held_writes_idempotency_key" ON "held_writes" USING btree ("org_id","idempotency_key") WHERE "idempotency_key" is not null;
