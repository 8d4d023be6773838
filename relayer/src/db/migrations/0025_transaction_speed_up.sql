-- When the caller last raised a sent write's fee cap (POST /api/v1/transactions/{id}/speed-up).
ALTER TABLE "transactions" ADD COLUMN "speed_up_at" timestamp with time zone;
