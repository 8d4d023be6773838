import type { Database } from "../db/client.js";
import { assetMetadata } from "../db/schema/index.js";
import { jsonCid, parseCid, type CidParts } from "./cid.js";

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
  /** The exact canonical JSON text stored (and hashed when the CID is computed). */
  json: string;
  cid: string;
  cidParts: CidParts;
  /** True when the caller gave `ipfsHash` (then the CID is theirs, not a hash of `json`). */
  external: boolean;
}

/**
 * Canonical JSON: object keys sorted, no insignificant whitespace, UTF-8. The same document
 * always gives the same bytes, hence the same CID.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Builds the ERC-721 metadata document (name, description, image, external_url, attributes with
 * the asset type). Without `ipfsHash` the token references the document's own CIDv1 (json codec,
 * sha2-256 over the canonical bytes); with it, the given CID.
 *
 * @example
 * const meta = await buildMetadata({ assetType: "Bond", name: "B-1", description: "..." });
 * meta.cid // "bagaaiera..."
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
  if (ipfsHash !== undefined) {
    const parsed = parseCid(ipfsHash);
    return { json, cid: parsed.canonical, cidParts: parsed.parts, external: true };
  }
  const computed = await jsonCid(new TextEncoder().encode(json));
  return { json, cid: computed.canonical, cidParts: computed.parts, external: false };
}

/** Stores documents by CID (first write wins: a computed CID always names the same bytes). */
export async function storeMetadata(
  database: Database,
  docs: readonly BuiltMetadata[],
): Promise<void> {
  if (docs.length === 0) return;
  await database.db
    .insert(assetMetadata)
    .values(docs.map((d) => ({ cid: d.cid, json: d.json })))
    .onConflictDoNothing();
}
