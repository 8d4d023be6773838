-- The write each broadcast hash belongs to (schema/transactions.ts: transactionHashes), instead of
-- a GIN index on transactions.attempts: the attempts already recorded are copied over.
CREATE TABLE "transaction_hashes" (
	"hash" text PRIMARY KEY NOT NULL,
	"transaction_id" text NOT NULL
);--> statement-breakpoint
INSERT INTO "transaction_hashes" ("hash", "transaction_id")
SELECT a->>'hash', t.id FROM "transactions" t, jsonb_array_elements(t.attempts) a
 WHERE a->>'hash' IS NOT NULL
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP INDEX IF EXISTS "transactions_attempt_hashes_idx";
--> statement-breakpoint
-- The pin worker marks only a document's rows not pinned yet (it re-marked every token sharing
-- the document on each pin: quadratic in the tokens of one document).
CREATE INDEX "token_metadata_unpinned_idx" ON "token_metadata" USING btree ("cid") WHERE "pinned_at" IS NULL;
--> statement-breakpoint
-- Only a batch's item rows have a parent: every other row version no longer adds an entry.
DROP INDEX IF EXISTS "transactions_parent_idx";--> statement-breakpoint
CREATE INDEX "transactions_parent_idx" ON "transactions" USING btree ("parent_id") WHERE "parent_id" IS NOT NULL;
