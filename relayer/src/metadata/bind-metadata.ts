import type pg from "pg";
import { documentCidOf } from "../writes/metadata.js";

/** Key of the metadata document (canonical JSON text) in an issue-asset row's `context`. */
export const METADATA_CONTEXT_KEY = "metadataDocument";

/** A document bound to a token. */
export interface BoundDocument {
  tokenId: string;
  cid: string;
  /** Already pinned (a replay of a mint whose document was pinned before). */
  pinned: boolean;
}

/**
 * Binds a minted token to the metadata document of the write that minted it: the issue-asset row
 * of this relayer whose broadcast attempts include the mint's transaction hash and whose wallet
 * is the minter (the engine records every attempt's hash before broadcasting it, so the row is
 * always there when the log is). The document's CID is computed here from its bytes.
 *
 * Idempotent: replaying the same mint rewrites the same row; a token id minted again by another
 * transaction after a reorg gets that transaction's document (or none).
 *
 * @returns the bound document, or undefined for a mint this relayer did not write
 */
export async function bindMintMetadata(
  client: pg.ClientBase,
  mint: { tokenId: string; txHash: string; minter: string },
): Promise<BoundDocument | undefined> {
  const { rows } = await client.query<{ json: string | null }>(
    `SELECT context->>'${METADATA_CONTEXT_KEY}' AS json FROM transactions
     WHERE attempts @> jsonb_build_array(jsonb_build_object('hash', $1::text))
       AND kind = 'issue-asset' AND lower(from_address) = lower($2)
     LIMIT 1`,
    [mint.txHash, mint.minter],
  );
  const json = rows[0]?.json;
  if (json === null || json === undefined) {
    await client.query(`DELETE FROM token_metadata WHERE token_id = $1 AND mint_tx_hash <> $2`, [
      mint.tokenId,
      mint.txHash,
    ]);
    return undefined;
  }
  const cid = await documentCidOf(json);
  const { rows: bound } = await client.query<{ pinned: boolean }>(
    `INSERT INTO token_metadata (token_id, mint_tx_hash, cid, json) VALUES ($1, $2, $3, $4)
     ON CONFLICT (token_id) DO UPDATE SET mint_tx_hash = EXCLUDED.mint_tx_hash, cid = EXCLUDED.cid,
       json = EXCLUDED.json,
       pinned_at = CASE WHEN token_metadata.cid = EXCLUDED.cid THEN token_metadata.pinned_at END,
       pin_target = CASE WHEN token_metadata.cid = EXCLUDED.cid THEN token_metadata.pin_target END
     RETURNING pinned_at IS NOT NULL AS pinned`,
    [mint.tokenId, mint.txHash, cid, json],
  );
  return { tokenId: mint.tokenId, cid, pinned: bound[0]?.pinned === true };
}
