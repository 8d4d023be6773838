import { getAddress, isAddress, ZeroAddress } from "ethers";
import { z } from "zod";
import { ValidationError } from "../errors.js";

/** A string of at most `max` characters (the write kinds' length limits, `limits.ts`). */
export const textField = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/** The AssetTypeRegistry's limit on a type name, counted in UTF-8 bytes as the contract does. */
export const ASSET_TYPE_NAME_MAX_BYTES = 64;

/**
 * A name for a new asset type: 1 to 64 UTF-8 bytes, the registry's own limit (its
 * `MAX_NAME_LENGTH` counts bytes, so 64 characters outside ASCII are up to 256 bytes: refused
 * here with a 400 instead of reverting on chain).
 */
export const assetTypeNameField = z
  .string()
  .min(1, "must not be empty")
  .max(ASSET_TYPE_NAME_MAX_BYTES, `must be at most ${ASSET_TYPE_NAME_MAX_BYTES} bytes in UTF-8`)
  .refine(
    (value) => new TextEncoder().encode(value).length <= ASSET_TYPE_NAME_MAX_BYTES,
    `must be at most ${ASSET_TYPE_NAME_MAX_BYTES} bytes in UTF-8`,
  )
  .describe("case-sensitive; at most 64 bytes in UTF-8");

/** A native-coin amount as the API accepts it: a decimal string or a number. */
export const amountField = z
  .union([z.string(), z.number()])
  .describe('native-coin decimal amount, e.g. "0.1"');

/** A token or listing id as the API accepts it: a decimal string or a non-negative integer. */
export const idField = z
  .union([z.string(), z.number().int().nonnegative()])
  .describe("decimal id (string or number)");

/** Parses a token or listing id given as a string or a number into a bigint. */
export function parseId(value: string | number, field: string): bigint {
  const text =
    typeof value === "number"
      ? Number.isSafeInteger(value) && value >= 0
        ? String(value)
        : "x"
      : value.trim();
  if (!/^\d{1,78}$/.test(text))
    throw new ValidationError(`Invalid field: ${field} (must be a non-negative integer)`);
  const id = BigInt(text);
  if (id >= 2n ** 256n) throw new ValidationError(`Invalid field: ${field} (out of range)`);
  return id;
}

/** Checks and checksums a 0x address; the zero address is refused. */
export function parseAddress(value: string, field: string): string {
  if (!isAddress(value)) throw new ValidationError(`Invalid field: ${field} (not a 0x address)`);
  const address = getAddress(value);
  if (address === ZeroAddress)
    throw new ValidationError(`Invalid field: ${field} (the zero address cannot hold tokens)`);
  return address;
}
