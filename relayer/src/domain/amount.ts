import { z } from "zod";

/**
 * The amount format of the whole API: a native-coin amount is a decimal string
 * without trailing zeros (`"0.1"`, `"2"`), beside its integer wei string where both are given.
 */

/** A native-coin decimal amount as the API writes it (`"0.1"`, `"2"`). */
export const coinAmount = z.string().describe("native coin decimal");

/** The same amount as an integer in wei (`"100000000000000000"`). */
export const weiAmount = z.string().describe("integer wei");

/**
 * Integer wei (decimal string) → native coin decimal string without trailing zeros, the form
 * every amount in the API takes: "100000000000000000" → "0.1", "2000000000000000000" → "2".
 * String arithmetic only (no bigint or FixedNumber objects): this runs for every row of every read.
 */
export function weiToDecimal(wei: string): string {
  const negative = wei.startsWith("-");
  const digits = (negative ? wei.slice(1) : wei).replace(/^0+/, "") || "0";
  const padded = digits.padStart(19, "0");
  const whole = padded.slice(0, -18);
  const fraction = padded.slice(-18).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}
