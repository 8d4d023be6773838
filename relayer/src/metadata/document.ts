import { canonicalJson } from "../shared/canonical-json.js";
import { rawCid, parseCid, type CidParts } from "./cid.js";

/** What an issuance puts in the NFT metadata document. */
export interface MetadataInput {
  assetType: string;
  name: string;
  description: string;
  image?: string | undefined;
  externalUrl?: string | undefined;
}

/** A metadata document and the CID the token will reference. */
export interface BuiltMetadata {
  /** The exact canonical JSON text (the bytes added to IPFS and hashed into `documentCid`). */
  json: string;
  /** The document's own CID (raw codec, sha2-256 of `json`). */
  documentCid: string;
  /** What the token stores on chain: `documentCid`, or the caller's `ipfsHash` when given. */
  cid: string;
  cidParts: CidParts;
  /** True when the caller gave `ipfsHash` (then `cid` is their reference, not a hash of `json`). */
  external: boolean;
}

/** The CID of a stored document's text: the only key a document is ever stored or served under. */
export async function documentCidOf(json: string): Promise<string> {
  return (await rawCid(new TextEncoder().encode(json))).canonical;
}

/**
 * Builds the ERC-721 metadata document (name, description, image, external_url, attributes with
 * the asset type). Without `ipfsHash` the token references the document's own CIDv1 (raw codec,
 * sha2-256 over the canonical bytes); with it, the given CID. Nothing is stored here: the
 * document travels on the write's own transaction row and is bound to the token when the
 * indexer sees that transaction's mint (`metadata/bind-metadata.ts`).
 *
 * @example
 * const meta = await buildMetadata({ assetType: "Bond", name: "B-1", description: "..." });
 * meta.cid // "bafkrei..."
 */
export async function buildMetadata(
  input: MetadataInput,
  ipfsHash?: string,
): Promise<BuiltMetadata> {
  const document = {
    name: input.name,
    description: input.description,
    image: input.image,
    external_url: input.externalUrl,
    attributes: [{ trait_type: "Asset Type", value: input.assetType }],
  };
  const json = canonicalJson(document);
  const own = await rawCid(new TextEncoder().encode(json));
  if (ipfsHash !== undefined) {
    const parsed = parseCid(ipfsHash);
    return {
      json,
      documentCid: own.canonical,
      cid: parsed.canonical,
      cidParts: parsed.parts,
      external: true,
    };
  }
  return {
    json,
    documentCid: own.canonical,
    cid: own.canonical,
    cidParts: own.parts,
    external: false,
  };
}
