/**
 * Integer wei (decimal string) → native coin decimal string, e.g. "100000000000000000" → "0.1",
 * "1000000000000000000" → "1.0" (the same text as ethers' `formatEther`, without its
 * FixedNumber objects: this runs for every row of every read).
 */
export function weiToDecimal(wei: string): string {
  const negative = wei.startsWith("-");
  const digits = (negative ? wei.slice(1) : wei).replace(/^0+/, "") || "0";
  const padded = digits.padStart(19, "0");
  const whole = padded.slice(0, -18);
  const fraction = padded.slice(-18).replace(/0+$/, "") || "0";
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}
