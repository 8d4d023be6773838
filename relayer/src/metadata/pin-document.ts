import { CID } from "multiformats/cid";
import type { Database } from "../db/client.js";
import { documentCidOf } from "./document.js";
import type { IpfsTarget } from "./ipfs-target.js";

/**
 * Pins one stored document on `target` and records it (`token_metadata.pinned_at`, shown as
 * `metadataPinned`) on the tokens holding it that are not pinned yet. Nothing to do when no
 * token holds the CID any more (rolled back) or every one is pinned; a document `target`
 * already holds for another token is recorded without pinning it again (many tokens may share
 * one document: each pin used to re-mark all of them). A failure is recorded in `pin_error` and
 * rethrown, so the queue retries it.
 */
export async function pinDocument(
  database: Database,
  target: IpfsTarget,
  cidText: string,
): Promise<"pinned" | "already-pinned" | "gone"> {
  const { rows } = await database.pool.query<{
    json: string | null;
    held: boolean;
    on_target: boolean;
  }>(
    `SELECT (SELECT json FROM token_metadata WHERE cid = $1 AND pinned_at IS NULL LIMIT 1) AS json,
            EXISTS (SELECT 1 FROM token_metadata WHERE cid = $1) AS held,
            EXISTS (SELECT 1 FROM token_metadata WHERE cid = $1 AND pin_target = $2) AS on_target`,
    [cidText, target.name],
  );
  const row = rows[0]!;
  if (!row.held) return "gone";
  if (row.json === null) return "already-pinned";
  if (!row.on_target) {
    // The key is always the hash of the bytes; never pin anything else under it.
    if ((await documentCidOf(row.json)) !== cidText) {
      throw new Error(`stored document does not hash to ${cidText}`);
    }
    try {
      await target.pin(
        CID.parse(cidText),
        new TextEncoder().encode(row.json),
        `metadata ${cidText}`,
      );
    } catch (error) {
      await database.pool.query(
        `UPDATE token_metadata SET pin_error = $2 WHERE cid = $1 AND pinned_at IS NULL`,
        [cidText, (error instanceof Error ? error.message : String(error)).slice(0, 500)],
      );
      throw error;
    }
  }
  await database.pool.query(
    `UPDATE token_metadata SET pinned_at = now(), pin_target = $2, pin_error = NULL
      WHERE cid = $1 AND pinned_at IS NULL`,
    [cidText, target.name],
  );
  return "pinned";
}
