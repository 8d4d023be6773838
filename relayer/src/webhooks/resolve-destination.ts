import { lookup } from "node:dns/promises";
import net from "node:net";
import { BaseError } from "../errors.js";
import { isNonPublicIp } from "../services/webhook-url-policy.js";

/** The destination resolves to an address deliveries may not reach (SSRF guard). Not retried. */
export class DestinationRefusedError extends BaseError {
  override name = "DestinationRefusedError";
}

/** A resolved, checked address to connect to. */
export interface ResolvedDestination {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the URL's host at delivery time and refuses private, loopback, link-local, CGNAT,
 * multicast, reserved and unspecified addresses (IPv4 and IPv6, mapped forms included) unless
 * `allowLocal`. Every resolved address must pass; the first is returned so the request can be
 * pinned to it (no second lookup an attacker's DNS could answer differently).
 */
export async function resolveDestination(
  url: URL,
  allowLocal: boolean,
): Promise<ResolvedDestination> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const family = net.isIP(host);
  const addresses =
    family !== 0
      ? [{ address: host, family }]
      : await lookup(host, { all: true, verbatim: true }).catch((cause: unknown) => {
          throw new DestinationRefusedError(`Cannot resolve ${host}`, { cause });
        });
  if (addresses.length === 0) throw new DestinationRefusedError(`Cannot resolve ${host}`);
  if (!allowLocal) {
    const bad = addresses.find((a) => isNonPublicIp(a.address));
    if (bad !== undefined)
      throw new DestinationRefusedError(`Destination address not allowed (${bad.address})`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
