-- Documents stored by CID before token_metadata existed: carry over only those under a CID this
-- service computed from their own bytes (json codec, "bagaaiera..."), which no other write could
-- have occupied; each is re-keyed by its raw-codec CID (CIDv1 0x55, same sha2-256 digest, in
-- base32). Documents stored under a caller's ipfsHash may be another organization's text and are
-- dropped: those tokens show the minimal document pointing at their CID.
INSERT INTO "token_metadata" ("token_id", "mint_tx_hash", "cid", "json")
SELECT a.token_id, a.mint_tx_hash,
       'b' || (SELECT string_agg(substr('abcdefghijklmnopqrstuvwxyz234567',
                 1 + (SELECT sum(CASE WHEN k < 288 THEN get_bit(d.b, (k / 8) * 8 + 7 - k % 8) << (5 * i + 4 - k) ELSE 0 END)
                      FROM generate_series(5 * i, 5 * i + 4) k)::int, 1), '' ORDER BY i)
               FROM generate_series(0, 57) i),
       m.json
FROM "assets" a
JOIN "asset_metadata" m ON m.cid = a.cid AND m.cid LIKE 'bagaaiera%'
CROSS JOIN LATERAL (SELECT '\x01551220'::bytea || sha256(convert_to(m.json, 'UTF8')) AS b) d
ON CONFLICT ("token_id") DO NOTHING;--> statement-breakpoint
DROP TABLE "asset_metadata" CASCADE;
