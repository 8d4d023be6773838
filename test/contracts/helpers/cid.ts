import { CID } from "multiformats/cid";
import * as Digest from "multiformats/hashes/digest";
import { ethers } from "ethers";

/** Multicodec / multihash codes used in the tests. */
export const codec = {
  raw: 0x55,
  dagPb: 0x70,
  dagCbor: 0x71,
  dagJson: 0x0129,
  json: 0x0200,
  libp2pKey: 0x72,
} as const;
export const hashCode = { sha2_256: 0x12, blake3: 0x1e, keccak256: 0x1b, sha3_256: 0x16 } as const;

/** CID parts as `IAssetToken.Cid` takes them. */
export interface CidParts {
  digest: string;
  version: number;
  codec: number;
  hashCode: number;
}

/** A deterministic 32-byte digest derived from `seed`. */
export function digestOf(seed: string): string {
  return ethers.keccak256(ethers.toUtf8Bytes(seed));
}

/** CIDv1 parts with the given codec and hash code over `digest`. */
export function cidV1(
  digest: string,
  cidCodec: number = codec.raw,
  hash: number = hashCode.sha2_256,
): CidParts {
  return { digest, version: 1, codec: cidCodec, hashCode: hash };
}

/** CIDv0 parts (dag-pb, sha2-256) over `digest`. */
export function cidV0(digest: string): CidParts {
  return { digest, version: 0, codec: codec.dagPb, hashCode: hashCode.sha2_256 };
}

/**
 * The text form of the CID computed by the reference implementation (multiformats), to check the
 * contract's rendering against.
 */
export function expectedCidText(parts: CidParts): string {
  const multihash = Digest.create(parts.hashCode, ethers.getBytes(parts.digest));
  return CID.create(parts.version as 0 | 1, parts.codec, multihash).toString();
}

/** Parses a CID string into the parts the contract takes (32-byte digests only). */
export function partsFromText(text: string): CidParts {
  const cid = CID.parse(text);
  if (cid.multihash.digest.length !== 32) throw new Error("only 32-byte digests are supported");
  return {
    digest: ethers.hexlify(cid.multihash.digest),
    version: cid.version,
    codec: cid.code,
    hashCode: cid.multihash.code,
  };
}
