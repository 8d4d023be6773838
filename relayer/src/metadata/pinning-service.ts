import type { CID } from "multiformats/cid";
import type { IpfsTarget } from "./ipfs-target.js";

/** How long one Pinning Service API request may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * An IPFS Pinning Service API endpoint (`POST {endpoint}/pins` with a bearer token). The service
 * fetches the content from the IPFS network by CID; a pin request it accepts (`queued`, `pinning`
 * or `pinned`) counts as pinned here, one it answers `failed` or with an error is retried.
 */
export function pinningServiceTarget(endpoint: string, token: string): IpfsTarget {
  const base = endpoint.replace(/\/+$/, "");
  return {
    name: "pinning-service",
    async pin(cid: CID, _bytes: Uint8Array, name: string): Promise<void> {
      const response = await fetch(`${base}/pins`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ cid: cid.toString(), name }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await response.text();
      if (!response.ok) {
        throw new Error(`pinning service answered ${response.status}: ${text.slice(0, 200)}`);
      }
      let status: unknown;
      try {
        status = (JSON.parse(text) as { status?: unknown }).status;
      } catch {
        status = undefined;
      }
      if (status === "failed") throw new Error("pinning service reports the pin failed");
    },
    // The service has no read API; the gateway serves the database's copy.
    get: () => Promise.resolve(undefined),
    stop: () => Promise.resolve(),
  };
}
