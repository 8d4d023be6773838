import ipaddr from "ipaddr.js";

/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Why a URL was refused, or undefined when it is acceptable. */
export type WebhookUrlProblem = string | undefined;

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

const cidrs = (list: readonly string[]): Cidr[] => list.map((text) => ipaddr.parseCIDR(text));

/**
 * IPv4 blocks a webhook may never reach (docs/webhooks.md, "Destinations"): this network,
 * private, shared address space (CGNAT), loopback, link-local, IETF protocol assignments,
 * documentation, 6to4 relay anycast, benchmarking, multicast, reserved and broadcast.
 * Listed explicitly so the rule does not depend on how a library version names its ranges;
 * `ipaddr.js`'s own `range()` must also say `unicast`.
 */
const BLOCKED_V4 = cidrs([
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
]);

/**
 * IPv6: only global unicast (2000::/3) is public, which already excludes the unspecified and
 * loopback addresses, IPv4-compatible (::/96) and IPv4-mapped (::ffff:0:0/96) forms, NAT64
 * (64:ff9b::/96, 64:ff9b:1::/48), discard (100::/64), unique-local, site-local (fec0::/10),
 * link-local and multicast. Inside 2000::/3 these carry or tunnel to other networks, or are
 * not routable: IETF protocol assignments incl. Teredo (2001::/23), documentation, 6to4
 * (2002::/16, which embeds an IPv4 address), and segment-routing SIDs.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
const BLOCKED_V6 = cidrs(["2001::/23", "2001:db8::/32", "2002::/16", "3fff::/20", "5f00::/16"]);

function inAny(address: ipaddr.IPv4 | ipaddr.IPv6, blocks: readonly Cidr[]): boolean {
  return blocks.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
}

/**
 * Whether an IP literal is a public unicast address a webhook may be delivered to. Anything
 * that does not parse as an IP address is not public.
 *
 * @example
 * isPublicAddress("93.184.215.14") // true
 * isPublicAddress("::ffff:127.0.0.1") // false (IPv4-mapped loopback)
 * isPublicAddress("64:ff9b::a9fe:a9fe") // false (NAT64 of 169.254.169.254)
 */
export function isPublicAddress(ip: string): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(ip);
  } catch {
    return false;
  }
  if (address.range() !== "unicast") return false;
  if (address.kind() === "ipv4") return !inAny(address, BLOCKED_V4);
  return address.match(GLOBAL_UNICAST_V6) && !inAny(address, BLOCKED_V6);
}

/** Whether an IP literal is anything but a public unicast address (see `isPublicAddress`). */
export function isNonPublicIp(ip: string): boolean {
  return !isPublicAddress(ip);
}

function isLocalHostname(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost");
}

/**
 * Checks a webhook target URL at registration (static checks only; the delivery worker also
 * resolves DNS and refuses non-public addresses, which catches hostnames pointing inward):
 * - at most 2048 characters, parseable, no user:password part;
 * - `https:`; `http:` only for a local host when `allowLocal` (development and tests);
 * - the host must not be `localhost` or a literal non-public IP unless `allowLocal`.
 *
 * @returns a short reason, or undefined when acceptable
 */
export function checkWebhookUrl(url: string, allowLocal: boolean): WebhookUrlProblem {
  if (url.length > MAX_WEBHOOK_URL_LENGTH)
    return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a valid URL";
  }
  if (parsed.username !== "" || parsed.password !== "") return "must not contain credentials";
  const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "") return "must have a host";
  const local = isLocalHostname(host) || (ipaddr.isValid(host) && !isPublicAddress(host));
  if (parsed.protocol === "http:") {
    if (!(allowLocal && local)) return "must use https";
  } else if (parsed.protocol !== "https:") {
    return "must use https";
  }
  if (local && !allowLocal) return "must not point to a local or private address";
  return undefined;
}
