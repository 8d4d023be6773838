import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";
import type { Database } from "../db/client.js";
import type { IpfsTarget } from "./ipfs-target.js";

/**
 * The bytes of `cid` from the IPFS target, else from the stored documents (`token_metadata`,
 * keyed by the hash of their own bytes). Whatever the source, the bytes are returned only when
 * their sha2-256 digest is the CID's, so nothing else can ever be served under a CID.
 *
 * @returns the verified bytes, or undefined when neither holds the block
 */
export async function readBlock(
  database: Database,
  target: IpfsTarget,
  cid: CID,
): Promise<Uint8Array | undefined> {
  if (cid.multihash.code !== sha256.code) return undefined;
  const fromTarget = await target.get(cid).catch(() => undefined);
  if (fromTarget !== undefined && (await hashesTo(fromTarget, cid))) return fromTarget;
  const { rows } = await database.pool.query<{ json: string }>(
    `SELECT json FROM token_metadata WHERE cid = $1 LIMIT 1`,
    [CID.createV1(cid.code, cid.multihash).toString()],
  );
  const json = rows[0]?.json;
  if (json === undefined) return undefined;
  const bytes = new TextEncoder().encode(json);
  return (await hashesTo(bytes, cid)) ? bytes : undefined;
}

async function hashesTo(bytes: Uint8Array, cid: CID): Promise<boolean> {
  const digest = (await sha256.digest(bytes)).digest;
  const expected = cid.multihash.digest;
  return digest.length === expected.length && digest.every((b, i) => b === expected[i]);
}
