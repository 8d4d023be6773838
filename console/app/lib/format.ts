import { BUDGET_PER_ASSET_WEI, WRITE_SCOPES } from "./constants";

/** A timestamp for tables: local date and time, or an em dash when absent. */
export function formatTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** `0x1234…abcd` for narrow cells; the full value stays in the title attribute. */
export function shortHex(value: string, keep = 6): string {
  return value.length <= keep * 2 + 2 ? value : `${value.slice(0, keep + 2)}…${value.slice(-keep)}`;
}

/** How many assets (at about 0.15 coin each) a balance in wei covers. */
export function assetsCovered(balanceWei: string): bigint {
  try {
    return BigInt(balanceWei) / BUDGET_PER_ASSET_WEI;
  } catch {
    return 0n;
  }
}

/** Groups the digits of an integer string (wei) for reading: 1 000 000. */
export function groupDigits(value: string): string {
  return value.replace(/\B(?=(\d{3})+(?!\d))/g, "\u202f");
}

/**
 * Scopes the signed-in session may hand to a new key: its own, with `write:all` also offered
 * as the three write scopes it stands for (the relayer checks the subset again).
 */
export function grantableScopes(held: readonly string[]): string[] {
  const out = new Set<string>();
  for (const scope of held) {
    out.add(scope);
    if (scope === "write:all") for (const write of WRITE_SCOPES) out.add(write);
  }
  return [...out];
}
