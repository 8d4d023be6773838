import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";
import type { Database } from "../db/client.js";

/**
 * The bytes of `cid` when it is a metadata document this service holds (`token_metadata`, keyed
 * by the CID of its own bytes), verified: returned only when their sha2-256 digest is the
 * CID's, so nothing else can ever be served under a CID. The IPFS target (embedded node, kubo,
 * pinning service) is never asked: a public gateway request must not make our node search the
 * network for a CID someone chose (docs/api-decisions.mdIPFS gateway).
 *
 * @returns the verified bytes, or undefined when the service holds no such document
 */
export async function readBlock(database: Database, cid: CID): Promise<Uint8Array | undefined> {
  if (cid.multihash.code !== sha256.code) return undefined;
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
