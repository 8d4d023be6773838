import type pg from "pg";

/** Addresses used by the seeded rows (lower-case, as stored). */
export const SEED_OWNER = "0xa1000000000000000000000000000000000000a1";
export const SEED_SELLER = "0xb2000000000000000000000000000000000000b2";
export const SEED_TYPES = {
  bond: "0x" + "01".repeat(32),
  realEstate: "0x" + "02".repeat(32),
} as const;

/** Options of `seedReadModel`. */
export interface SeedOptions {
  /** Also store a metadata document (name, description, image, URL) for every asset. */
  metadata?: boolean;
}

/**
 * Bulk-inserts a synthetic read model straight into PostgreSQL (tests and bench/reads.ts), one
 * `generate_series` statement per table: `count` assets (even ids "Bond", odd ids "Real
 * Estate"; every 10th owned by SEED_OWNER) and one listing per 5th token, cycling active / sold /
 * cancelled / active-but-expired; with `metadata`, a document per asset as issuance stores it.
 */
export async function seedReadModel(
  pool: pg.Pool,
  count: number,
  options: SeedOptions = {},
): Promise<void> {
  await pool.query(
    `INSERT INTO asset_types (type_id, type_index, name, registrar, tx_hash, block_number, registered_at)
     VALUES ($1, 1001, 'Bond', $3, '0x' || repeat('0', 64), 1, now()), ($2, 1002, 'Real Estate', $3, '0x' || repeat('0', 64), 1, now())
     ON CONFLICT (type_id) DO NOTHING`,
    [SEED_TYPES.bond, SEED_TYPES.realEstate, SEED_SELLER],
  );
  await pool.query(
    `INSERT INTO assets (token_id, type_id, owner, minter, stake_wei, cid, password_hash, mint_tx_hash, mint_block,
                         minted_at, updated_block, updated_at)
     SELECT g, CASE WHEN g % 2 = 0 THEN $2 ELSE $3 END,
            CASE WHEN g % 10 = 0 THEN $4 ELSE '0x' || lpad(to_hex(g), 40, '0') END,
            $5, 100000000000000000, 'bafyseed' || g, '0x' || repeat('0', 64), '0x' || lpad(to_hex(g), 64, '0'), g,
            now() - make_interval(secs => $1 - g), g, now() - make_interval(secs => $1 - g)
     FROM generate_series(1, $1::int) g`,
    [count, SEED_TYPES.bond, SEED_TYPES.realEstate, SEED_OWNER, SEED_SELLER],
  );
  await pool.query(
    `INSERT INTO listings (listing_id, token_id, seller, buyer, price_wei, state, listed_at, expires_at, closed_at,
                           create_tx_hash, close_tx_hash, created_block, updated_block)
     SELECT g / 5, g, $2, CASE WHEN (g / 5) % 4 = 1 THEN $3 END, (g / 5)::numeric * 1000000000000000,
            CASE (g / 5) % 4 WHEN 1 THEN 'sold' WHEN 2 THEN 'cancelled' ELSE 'active' END,
            now() - interval '40 days',
            CASE WHEN (g / 5) % 4 = 3 THEN now() - interval '1 day' ELSE now() + interval '30 days' END,
            CASE WHEN (g / 5) % 4 IN (1, 2) THEN now() END,
            '0x' || lpad(to_hex(g), 64, 'f'), NULL, g, g
     FROM generate_series(5, $1::int, 5) g`,
    [count, SEED_SELLER, SEED_OWNER],
  );
  if (options.metadata === true) {
    await pool.query(
      `INSERT INTO token_metadata (token_id, mint_tx_hash, cid, json)
       SELECT a.token_id, a.mint_tx_hash, a.cid,
              json_build_object('name', 'Seeded asset ' || a.token_id,
                                'description', 'A synthetic asset seeded for the read benchmark, number ' || a.token_id,
                                'image', 'ipfs://bafyimage' || a.token_id, 'external_url', 'https://assets.example/' || a.token_id,
                                'attributes', json_build_array())::text
       FROM assets a WHERE a.token_id <= $1::int
       ON CONFLICT (token_id) DO NOTHING`,
      [count],
    );
  }
  await pool.query("ANALYZE assets; ANALYZE listings; ANALYZE token_metadata");
}
