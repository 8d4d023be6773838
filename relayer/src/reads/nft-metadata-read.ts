import type { Database } from "../db/client.js";
import { NotFoundError } from "../errors.js";
import { parseMetadataDocument } from "./metadata-document.js";

/** ERC-721 metadata JSON (`tokenURI` document). */
export interface NftMetadata {
  name: string;
  description: string;
  image: string;
  external_url: string;
  attributes: unknown[];
  [key: string]: unknown;
}

/**
 * The token's metadata document: the stored one when the CID is ours (issued through this
 * service), else a minimal document pointing at `ipfs://<cid>` with the on-chain facts.
 *
 * @throws NotFoundError `Asset not found`
 */
export async function getNftMetadata(database: Database, tokenId: string): Promise<NftMetadata> {
  const { rows } = await database.pool.query<{
    cid: string;
    json: string | null;
    type_name: string | null;
    stake_wei: string;
  }>({
    name: "nft-metadata",
    text: `SELECT a.cid, m.json, t.name AS type_name, a.stake_wei::text FROM assets a
           LEFT JOIN token_metadata m ON m.token_id = a.token_id AND m.mint_tx_hash = a.mint_tx_hash LEFT JOIN asset_types t ON t.type_id = a.type_id
           WHERE a.token_id = $1`,
    values: [tokenId],
  });
  const row = rows[0];
  if (row === undefined) throw new NotFoundError("Asset not found");
  const doc = parseMetadataDocument(row.json);
  const typeAttribute =
    row.type_name === null ? [] : [{ trait_type: "Asset Type", value: row.type_name }];
  if (doc !== undefined) {
    return {
      ...doc,
      name: doc.name ?? `Asset #${tokenId}`,
      description: doc.description ?? "",
      image: doc.image ?? "",
      external_url: doc.external_url ?? "",
      attributes: Array.isArray(doc.attributes) ? doc.attributes : typeAttribute,
    };
  }
  return {
    name: `Asset #${tokenId}`,
    description: `Metadata document at ipfs://${row.cid}`,
    image: "",
    external_url: `ipfs://${row.cid}`,
    attributes: typeAttribute,
    ipfs: `ipfs://${row.cid}`,
  };
}
