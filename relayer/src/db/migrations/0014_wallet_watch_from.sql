-- The first block the balance watch may read a wallet at (alerts/balance-watch.ts): the block of
-- the dev faucet's funding. Registration's operator transactions (allowlisting) are mined in
-- earlier blocks, where the wallet still held nothing; a first reading there made a wallet.funded.
ALTER TABLE "wallet_alerts" ADD COLUMN "watch_from_block" bigint;
