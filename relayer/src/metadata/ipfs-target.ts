import type { CID } from "multiformats/cid";

/**
 * Where metadata documents are added and pinned: the embedded node (default), a kubo node
 * (`IPFS_API_URL`) or an IPFS Pinning Service API endpoint (`IPFS_PINNING_SERVICE`).
 */
export interface IpfsTarget {
  readonly name: "embedded" | "kubo" | "pinning-service";
  /**
   * Adds `bytes` (whose CID is `cid`) and pins it; resolves once the target holds the pin.
   * Throws when the target is unreachable or refuses (the pin queue retries).
   */
  pin(cid: CID, bytes: Uint8Array, name: string): Promise<void>;
  /** The block's bytes when this target holds it, else undefined. */
  get(cid: CID): Promise<Uint8Array | undefined>;
  /**
   * Loads what the first pin would otherwise load on the event loop (the embedded node's
   * modules): called while a pinning process starts, so that no request stalls behind it.
   */
  warm?(): Promise<void>;
  stop(): Promise<void>;
}
