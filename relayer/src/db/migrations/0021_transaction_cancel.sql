-- When a write was cancelled before it was sent (POST /api/v1/transactions/{id}/cancel).
ALTER TABLE "transactions" ADD COLUMN "cancelled_at" timestamp with time zone;
