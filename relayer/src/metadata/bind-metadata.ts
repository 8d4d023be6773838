import type pg from "pg";
import { documentCidOf } from "./document.js";
import { METADATA_CONTEXT_KEY } from "../domain/write-outcome.js";

/** Key of the metadata document (canonical JSON text) in an issue-asset row's `context`. */
export { METADATA_CONTEXT_KEY };

/**
 * Binds minted tokens to the metadata documents of the writes that minted them: for each mint,
 * the issue-asset row of this relayer whose broadcast attempts include the mint's transaction
 * hash (`transaction_hashes`) and whose wallet is the minter (the engine records every
 * attempt's hash before broadcasting it, so the row is always there when the log is). Each
 * document's CID is computed here from its bytes. Three statements for any number of mints: the
 * look-up, the upsert, and the removal of documents left by another transaction that minted the
 * same token id.
 *
 * Idempotent: replaying the same mint rewrites the same row; a token id minted again by another
 * transaction after a reorg gets that transaction's document (or none).
 */
export async function bindMintsMetadata(
  client: pg.ClientBase,
  all: ReadonlyArray<{ tokenId: string; txHash: string; minter: string }>,
): Promise<void> {
  // One row per token (the last mint of an id wins, as applying them in turn would).
  const mints = [...new Map(all.map((m) => [m.tokenId, m])).values()];
  if (mints.length === 0) return;
  const { rows } = await client.query<{ i: number; json: string | null }>(
    `SELECT m.i, t.json
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS m(tx_hash, minter, i)
       CROSS JOIN LATERAL (
         SELECT t.context->>'${METADATA_CONTEXT_KEY}' AS json
           FROM transaction_hashes h JOIN transactions t ON t.id = h.transaction_id
          WHERE h.hash = lower(m.tx_hash)
            AND t.kind = 'issue-asset' AND lower(t.from_address) = lower(m.minter)) t`,
    [mints.map((m) => m.txHash), mints.map((m) => m.minter)],
  );
  const documents = new Map<number, string>();
  for (const row of rows) if (row.json !== null) documents.set(Number(row.i) - 1, row.json);
  const bound = await Promise.all(
    [...documents].map(async ([i, json]) => ({
      mint: mints[i]!,
      json,
      cid: await documentCidOf(json),
    })),
  );
  const unbound = mints.filter((_, i) => !documents.has(i));
  if (unbound.length > 0) {
    await client.query(
      `DELETE FROM token_metadata d USING unnest($1::numeric[], $2::text[]) AS u(token_id, tx_hash)
        WHERE d.token_id = u.token_id AND d.mint_tx_hash <> u.tx_hash`,
      [unbound.map((m) => m.tokenId), unbound.map((m) => m.txHash)],
    );
  }
  if (bound.length > 0) {
    await client.query(
      `INSERT INTO token_metadata (token_id, mint_tx_hash, cid, json)
       SELECT * FROM unnest($1::numeric[], $2::text[], $3::text[], $4::text[])
       ON CONFLICT (token_id) DO UPDATE SET mint_tx_hash = EXCLUDED.mint_tx_hash, cid = EXCLUDED.cid,
         json = EXCLUDED.json,
         pinned_at = CASE WHEN token_metadata.cid = EXCLUDED.cid THEN token_metadata.pinned_at END,
         pin_target = CASE WHEN token_metadata.cid = EXCLUDED.cid THEN token_metadata.pin_target END`,
      [
        bound.map((b) => b.mint.tokenId),
        bound.map((b) => b.mint.txHash),
        bound.map((b) => b.cid),
        bound.map((b) => b.json),
      ],
    );
  }
}
