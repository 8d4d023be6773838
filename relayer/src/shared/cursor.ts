import { ValidationError } from "../errors.js";

/**
 * Opaque pagination cursors: base64url of `{"k":"<last key>"}`. The key is the last returned
 * id (token or listing id, a decimal string); the next page continues strictly below it.
 */
export function encodePageCursor(lastKey: string): string {
  return Buffer.from(JSON.stringify({ k: lastKey }), "utf8").toString("base64url");
}

/** Decodes a cursor made by `encodePageCursor`; 400 `Invalid cursor` for anything else. */
export function decodePageCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { k?: unknown };
    if (typeof parsed.k === "string" && /^\d{1,78}$/.test(parsed.k)) return parsed.k;
  } catch {
    // fall through
  }
  throw new ValidationError("Invalid cursor");
}

/** A page of results. `nextCursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
