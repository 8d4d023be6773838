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

/** A listing's price in COIN: `priceInCOIN` where the relayer sends it, else its `price` alias. */
export function priceOf(listing: { price: string; priceInCOIN?: string }): string {
  return listing.priceInCOIN ?? listing.price;
}

/** Whether two 0x addresses are the same account (any letter case). */
export function sameAddress(a: string | null | undefined, b: string | null | undefined): boolean {
  return (
    a !== null &&
    a !== undefined &&
    b !== null &&
    b !== undefined &&
    a.toLowerCase() === b.toLowerCase()
  );
}

/**
 * The URL an `<img>` may load for a metadata `image`: `ipfs://<cid>/<path>` through the relayer's
 * own gateway route (`/ipfs/<cid>/<path>`, same origin), `https:` as given, an inline
 * `data:image/…`, and anything else (`http:` from elsewhere, `javascript:`…) not at all. The
 * page's CSP (`img-src 'self' data: https:`) enforces the same.
 */
export function imageSource(image: string | null | undefined): string | undefined {
  if (image === null || image === undefined || image.trim() === "") return undefined;
  const value = image.trim();
  const ipfs = /^ipfs:\/\/(?:ipfs\/)?([A-Za-z0-9]+)(\/[^?#]*)?$/.exec(value);
  if (ipfs !== null) return `/ipfs/${ipfs[1]}${ipfs[2] ?? ""}`;
  if (/^data:image\/(png|jpeg|gif|webp|svg\+xml)[;,]/i.test(value)) return value;
  try {
    const url = new URL(value);
    if (url.protocol === "https:") return url.toString();
    if (
      url.protocol === "http:" &&
      typeof window !== "undefined" &&
      url.origin === window.location.origin
    )
      return url.toString();
  } catch {
    return undefined;
  }
  return undefined;
}

/** An external link from metadata, only when it is http(s); otherwise none. */
export function safeLink(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A coin amount for reading: at most `decimals` (default 4) decimals after the first significant
 * digit of the fraction, trailing zeros dropped, digits grouped ("99.8998", "0.0001234",
 * "1 250"). The exact value stays available (hover title, copy): see `Amount`.
 */
export function readableAmount(value: string, decimals = 4): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (match === null) return value;
  const [, sign = "", whole = "0", fraction = ""] = match;
  const leadingZeros = whole === "0" ? (/^0*/.exec(fraction)?.[0].length ?? 0) : 0;
  const kept = fraction.slice(0, leadingZeros + decimals).replace(/0+$/, "");
  const approx = kept.length < fraction.replace(/0+$/, "").length;
  return `${approx ? "≈ " : ""}${sign}${groupDigits(whole)}${kept === "" ? "" : `.${kept}`}`;
}

/** Wei in one gwei: fees per gas read in gwei. */
const GWEI = 1_000_000_000n;

/**
 * A fee per gas (wei, decimal) in gwei for reading, as `readableAmount` shortens it
 * ("1.5 gwei", "≈ 0.0012 gwei"); a value that is not a wei amount is shown as it came.
 */
export function gweiOf(wei: string): string {
  if (!/^\d+$/.test(wei)) return wei;
  const value = BigInt(wei);
  const fraction = (value % GWEI).toString().padStart(9, "0");
  return `${readableAmount(`${value / GWEI}.${fraction}`)} gwei`;
}
