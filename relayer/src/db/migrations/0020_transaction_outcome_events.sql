-- The Idempotency-Key a write was made with, on its root row: its transaction.* webhook event
-- (engine/outcome-events.ts) tells it, written in the statement that ends the row.
ALTER TABLE "transactions" ADD COLUMN "idempotency_key" text;
