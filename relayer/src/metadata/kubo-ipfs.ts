import type { CID } from "multiformats/cid";
import type { IpfsTarget } from "./ipfs-target.js";

/** How long one kubo RPC call may take. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * A kubo node's RPC API (`IPFS_API_URL`, e.g. `http://127.0.0.1:5001`) through kubo-rpc-client.
 * The document is added as a CIDv1 raw block and pinned; kubo must derive the same CID from the
 * bytes, or the pin counts as failed.
 */
export function kuboTarget(url: string): IpfsTarget {
  const client = import("kubo-rpc-client").then(({ create }) =>
    create({ url, timeout: REQUEST_TIMEOUT_MS }),
  );
  return {
    name: "kubo",
    async pin(cid: CID, bytes: Uint8Array, name: string): Promise<void> {
      const kubo = await client;
      const added = await kubo.block.put(bytes, { format: "raw", mhtype: "sha2-256", pin: true });
      if (added.toString() !== cid.toString()) {
        throw new Error(`kubo stored ${String(added)} for ${cid.toString()} (${name})`);
      }
    },
    async get(cid: CID): Promise<Uint8Array | undefined> {
      const kubo = await client;
      return kubo.block.get(cid, { timeout: REQUEST_TIMEOUT_MS });
    },
    async stop(): Promise<void> {},
  };
}
