import { getAddress } from "ethers";
import { z } from "zod";

/**
 * A 0x address as the API writes it (the relayer answers with checksummed addresses). Requests
 * are checked more strictly, checksum included, by the routes (`http/routes/schemas.ts`).
 */
export const address = z
  .string()
  .refine((value) => /^0x[0-9a-fA-F]{40}$/.test(value), "not a 0x address");

const MAX_ENTRIES = 100_000;
let cache = new Map<string, string>();

/**
 * EIP-55 checksummed form of a stored (lower-case) address, memoised: the checksum costs a
 * keccak256 in JavaScript (tens of microseconds), and a page of 50 assets has up to 100
 * addresses, mostly the same few custodial wallets. When full, the cache starts over (cheaper
 * than LRU bookkeeping on a hot path).
 */
export function checksumAddress(lower: string): string {
  const hit = cache.get(lower);
  if (hit !== undefined) return hit;
  const value = getAddress(lower);
  if (cache.size >= MAX_ENTRIES) cache = new Map();
  cache.set(lower, value);
  return value;
}
