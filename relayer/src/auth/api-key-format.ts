import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** `rwa_live_` followed by 64 lowercase or uppercase hex characters. */
export const API_KEY_PATTERN = /^rwa_live_[0-9a-fA-F]{64}$/;

/** Characters of the key kept in clear for display (`rwa_live_` + 8 hex). */
const PREFIX_LENGTH = "rwa_live_".length + 8;

/** A freshly generated API key: `key` is shown once; only `hash` and `prefix` are stored. */
export interface GeneratedApiKey {
  key: string;
  hash: string;
  prefix: string;
}

/** Generates a new key (`rwa_live_<64 hex>`, 256 bits of randomness). */
export function generateApiKey(): GeneratedApiKey {
  const key = `rwa_live_${randomBytes(32).toString("hex")}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, PREFIX_LENGTH) };
}

/** Lowercase hex SHA-256 of the full key string: the value stored in `api_keys.key_hash`. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Constant-time comparison of two hex SHA-256 digests. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right);
}
