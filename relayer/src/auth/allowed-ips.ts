import ipaddr from "ipaddr.js";

/**
 * Where an API key may be used from (docs/api-decisions.md "API keys bound to addresses"): an
 * optional list of CIDR ranges given when the key is created. Parsed with ipaddr.js; IPv4 only
 * in its four-part decimal form (`10.0.0.0/8`, never `0xa.0/8` or `10.1`), IPv6 in any standard
 * form. A bare address is a range of one (`/32`, `/128`). Stored canonically: the network address
 * and prefix (`10.1.2.3/8` is stored `10.0.0.0/8`).
 */

/** At most this many ranges per key. */
export const MAX_ALLOWED_IPS = 50;

/** One parsed range. */
export type IpRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseOne(value: string): IpRange | undefined {
  const text = value.trim();
  const [address, bits, ...rest] = text.split("/");
  if (address === undefined || rest.length > 0) return undefined;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) parsed = ipaddr.IPv4.parse(address);
  else if (ipaddr.IPv6.isValid(address)) parsed = ipaddr.IPv6.parse(address);
  else return undefined;
  const max = parsed.kind() === "ipv4" ? 32 : 128;
  if (bits === undefined) return [parsed, max];
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > max) return undefined;
  return [parsed, prefix];
}

/**
 * The canonical form of each range, or the index of the first one that is not an address or a
 * CIDR range.
 */
export function canonicalRanges(values: readonly string[]): string[] | { invalid: number } {
  const out: string[] = [];
  for (const [index, value] of values.entries()) {
    const range = parseOne(value);
    if (range === undefined) return { invalid: index };
    const [address, prefix] = range;
    const network =
      address.kind() === "ipv4"
        ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${prefix}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${prefix}`);
    const canonical = `${network.toString()}/${prefix}`;
    if (!out.includes(canonical)) out.push(canonical);
  }
  return out;
}

/** Parses canonical ranges as stored (`canonicalRanges`' output); a bad one is skipped. */
export function parseRanges(stored: readonly string[]): IpRange[] {
  return stored.flatMap((value) => {
    const range = parseOne(value);
    return range === undefined ? [] : [range];
  });
}

/**
 * Whether `ip` (as Express gives `req.ip`, IPv4-mapped IPv6 included) lies in one of `ranges`.
 * An address that does not parse is in none.
 */
export function ipAllowed(ip: string | undefined, ranges: readonly IpRange[]): boolean {
  if (ip === undefined || !ipaddr.isValid(ip)) return false;
  const address = ipaddr.process(ip); // ::ffff:10.0.0.1 → 10.0.0.1
  return ranges.some(([network, prefix]) => {
    if (address.kind() === network.kind()) return address.match(network, prefix);
    // An IPv4 client against an IPv6 range: compare its IPv4-mapped form.
    if (address.kind() === "ipv4" && network.kind() === "ipv6")
      return (address as ipaddr.IPv4).toIPv4MappedAddress().match(network, prefix);
    return false;
  });
}
