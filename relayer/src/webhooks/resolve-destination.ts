import { lookup } from "node:dns/promises";
import net from "node:net";
import { BaseError } from "../errors.js";
import { isPublicAddress } from "./url-policy.js";

/** The destination resolves to an address deliveries may not reach (SSRF guard). Not retried. */
export class DestinationRefusedError extends BaseError {
  override name = "DestinationRefusedError";
}

/** A resolved, checked address to connect to. */
export interface ResolvedDestination {
  address: string;
  family: 4 | 6;
}

/** The delivery log's words for a refused destination; the address itself is never shown. */
export const DESTINATION_NOT_ALLOWED = "destination not allowed";

/**
 * Resolves the URL's host at delivery time and refuses every address that is not public unicast
 * (`isPublicAddress`: private, loopback, link-local, CGNAT, multicast, reserved, IPv4-mapped and
 * -compatible IPv6, NAT64, 6to4, Teredo ...) unless `allowLocal`. Every resolved address must
 * pass; the first is returned so the request can be pinned to it (no second lookup an
 * attacker's DNS could answer differently). The error says `destination not allowed` and keeps
 * the address out of its message: the delivery log is shown to the organization, and naming
 * what its hostname resolved to inside our network would map that network for it.
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
    if (addresses.some((a) => !isPublicAddress(a.address)))
      throw new DestinationRefusedError(DESTINATION_NOT_ALLOWED);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
