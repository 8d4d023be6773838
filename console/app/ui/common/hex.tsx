import { shortHex } from "../../lib/format";
import { CopyButton } from "./copy-button";

/** A hash or address in a detail view: shortened, the full value in its title, with a copy button. */
export function Hex({ value, testId }: { value: string; testId?: string }) {
  return (
    <span className="copy-cell">
      <code title={value} data-testid={testId}>
        {shortHex(value, 8)}
      </code>
      <CopyButton value={value} compact />
    </span>
  );
}
