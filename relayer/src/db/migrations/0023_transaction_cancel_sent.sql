-- When the caller asked to cancel a write already sent: the engine races it with a zero-value
-- self-transfer on its nonce (engine/repricer.ts sendCancels).
ALTER TABLE "transactions" ADD COLUMN "cancel_requested_at" timestamp with time zone;
