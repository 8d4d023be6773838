import { parseEther } from "ethers";
import { ValidationError } from "../errors.js";
import { weiToDecimal } from "../domain/amount.js";

const DECIMAL = /^(0|[1-9]\d{0,40})(\.\d{1,18})?$/;

/**
 * Parses a native-coin decimal amount (`"0.1"`, `"25"`; numbers are accepted too) into wei.
 *
 * @throws ValidationError `Invalid field: <field> (must be a decimal amount ...)`
 */
export function parseCoin(value: string | number, field: string): bigint {
  const text = typeof value === "number" ? String(value) : value.trim();
  if (!DECIMAL.test(text)) {
    throw new ValidationError(
      `Invalid field: ${field} (must be a decimal amount with at most 18 decimals, e.g. "0.1")`,
    );
  }
  return parseEther(text);
}

/** Wei → decimal string without trailing zeros (`"0.1"`, `"2"`), as every API amount is written. */
export function formatCoin(wei: bigint): string {
  return weiToDecimal(wei.toString());
}

/** Wei → short decimal for messages (at most 6 decimals, rounded up when `up`). */
export function formatCoinShort(wei: bigint, up = false): string {
  const unit = 10n ** 12n; // keep 6 decimals
  const rounded = up ? ((wei + unit - 1n) / unit) * unit : (wei / unit) * unit;
  return formatCoin(rounded);
}
