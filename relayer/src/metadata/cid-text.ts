import { CID } from "multiformats/cid";
import * as Digest from "multiformats/hashes/digest";
import { getBytes } from "ethers";

/**
 * Text form of a CID stored on-chain as parts (same rules as `contracts/libraries/CidText.sol`):
 * CIDv0 as base58btc `Qm...`, CIDv1 as base32 `b...`.
 *
 * @example cidFromParts("0x12ab...", 1, 0x0200n, 0x12) // "bagaaiera..."
 */
export function cidFromParts(
  digestHex: string,
  version: number,
  codec: bigint | number,
  hashCode: number,
): string {
  const digest = Digest.create(hashCode, getBytes(digestHex));
  if (version === 0) return CID.createV0(digest as Digest.Digest<0x12, number>).toString();
  return CID.createV1(Number(codec), digest).toString();
}
