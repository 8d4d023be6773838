import net from "node:net";

/** Longest accepted webhook URL. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Why a URL was refused, or undefined when it is acceptable. */
export type WebhookUrlProblem = string | undefined;

function ipv4ToInt(ip: string): number {
  return ip.split(".").reduce((acc, part) => (acc << 8) + Number(part), 0) >>> 0;
}

const PRIVATE_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/** Whether an IP literal is loopback, private, link-local, CGNAT, multicast or reserved. */
export function isNonPublicIp(ip: string): boolean {
  if (net.isIPv4(ip)) {
    const value = ipv4ToInt(ip);
    return PRIVATE_V4.some(([base, bits]) => {
      const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
      return (value & mask) === (ipv4ToInt(base) & mask);
    });
  }
  if (net.isIPv6(ip)) {
    const lower = ip.toLowerCase();
    if (lower === "::" || lower === "::1") return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped?.[1] !== undefined) return isNonPublicIp(mapped[1]);
    if (/^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(lower)) return true; // mapped, hex form
    return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(lower);
  }
  return false;
}

function isLocalHostname(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost");
}

/**
 * Checks a webhook target URL at registration (static checks only; the delivery worker also
 * resolves DNS and refuses private addresses, which catches hostnames pointing inward):
 * - at most 2048 characters, parseable, no user:password part;
 * - `https:`; `http:` only for a local host when `allowLocal` (development and tests);
 * - the host must not be `localhost` or a literal loopback/private/link-local IP unless
 *   `allowLocal`.
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
  const local = isLocalHostname(host) || isNonPublicIp(host);
  if (parsed.protocol === "http:") {
    if (!(allowLocal && local)) return "must use https";
  } else if (parsed.protocol !== "https:") {
    return "must use https";
  }
  if (local && !allowLocal) return "must not point to a local or private address";
  return undefined;
}
