-- People (people/, docs/people.md): users with roles, their invitations, failed sign-ins, and
-- console sessions that belong to a person.
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL REFERENCES "orgs"("id"),
	"email" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text,
	"totp_secret_sealed" text,
	"totp_last_step" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_active_key" ON "users" USING btree ("email") WHERE "removed_at" is null;
--> statement-breakpoint
CREATE INDEX "users_org_id_idx" ON "users" USING btree ("org_id");
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL REFERENCES "users"("id"),
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX "invitations_user_id_idx" ON "invitations" USING btree ("user_id");
--> statement-breakpoint
CREATE TABLE "sign_in_failures" (
	"subject" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_failures_subject_at_idx" ON "sign_in_failures" USING btree ("subject","at");
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "user_id" text REFERENCES "users"("id");
