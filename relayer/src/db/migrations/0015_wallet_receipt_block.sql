-- A wallet's writes mined after a block (TxStore.writerState): the funds check keeps the
-- reservation of a write mined after the block its balance was read at, settled or not.
CREATE INDEX "transactions_wallet_receipt_block_idx" ON "transactions" USING btree ("wallet_id",((("receipt"->>'blockNumber'))::bigint)) WHERE "receipt" IS NOT NULL;
