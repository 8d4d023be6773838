import { CID } from "multiformats/cid";
import type { Database } from "../db/client.js";
import { documentCidOf } from "../writes/metadata.js";
import type { IpfsTarget } from "./ipfs-target.js";

/**
 * Pins one stored document on `target` and records it (`token_metadata.pinned_at`, shown as
 * `metadataPinned`). Nothing to do when no token holds the CID any more (rolled back) or it is
 * already pinned. A failure is recorded in `pin_error` and rethrown, so the queue retries it.
 */
export async function pinDocument(
  database: Database,
  target: IpfsTarget,
  cidText: string,
): Promise<"pinned" | "already-pinned" | "gone"> {
  const { rows } = await database.pool.query<{ json: string; pinned: boolean }>(
    `SELECT json, pinned_at IS NOT NULL AS pinned FROM token_metadata WHERE cid = $1
     ORDER BY pinned_at NULLS FIRST LIMIT 1`,
    [cidText],
  );
  const row = rows[0];
  if (row === undefined) return "gone";
  if (row.pinned) return "already-pinned";
  // The key is always the hash of the bytes; never pin anything else under it.
  if ((await documentCidOf(row.json)) !== cidText) {
    throw new Error(`stored document does not hash to ${cidText}`);
  }
  try {
    await target.pin(CID.parse(cidText), new TextEncoder().encode(row.json), `metadata ${cidText}`);
  } catch (error) {
    await database.pool.query(`UPDATE token_metadata SET pin_error = $2 WHERE cid = $1`, [
      cidText,
      (error instanceof Error ? error.message : String(error)).slice(0, 500),
    ]);
    throw error;
  }
  await database.pool.query(
    `UPDATE token_metadata SET pinned_at = now(), pin_target = $2, pin_error = NULL WHERE cid = $1`,
    [cidText, target.name],
  );
  return "pinned";
}
