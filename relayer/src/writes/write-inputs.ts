import { getAddress, isAddress, ZeroAddress } from "ethers";
import { ValidationError } from "../errors.js";

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
