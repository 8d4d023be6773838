/** The fields of a stored ERC-721 metadata document the read API uses. */
export interface MetadataDocument {
  name?: string;
  description?: string;
  image?: string;
  external_url?: string;
  attributes?: unknown[];
}

/** Parses a stored metadata JSON text; undefined when absent or not an object. */
export function parseMetadataDocument(
  json: string | null | undefined,
): MetadataDocument | undefined {
  if (json === null || json === undefined) return undefined;
  try {
    const doc = JSON.parse(json) as unknown;
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return undefined;
    return doc;
  } catch {
    return undefined;
  }
}
