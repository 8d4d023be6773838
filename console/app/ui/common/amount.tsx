import { readableAmount } from "../../lib/format";

/**
 * A coin amount shown to a readable precision (4 decimals after the first significant one,
 * `lib/format.ts` `readableAmount`), with the exact value in the hover title and in the text a
 * copy takes (`data-exact`, and the visually hidden exact figure read by screen readers).
 *
 * @example
 * <Amount value="99.899826125446652028" unit="COIN" /> // ≈ 99.8998 COIN, exact on hover
 */
export function Amount({
  value,
  unit = "COIN",
  testId,
}: {
  value: string;
  unit?: string;
  testId?: string;
}) {
  const shown = readableAmount(value);
  const exact = `${value} ${unit}`;
  return (
    <span className="amount" title={exact} data-exact={value} data-testid={testId}>
      {shown} <span className="unit">{unit}</span>
    </span>
  );
}
