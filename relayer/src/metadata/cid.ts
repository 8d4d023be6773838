import { CID } from "multiformats/cid";
import * as raw from "multiformats/codecs/raw";
import { sha256 } from "multiformats/hashes/sha2";
import { hexlify } from "ethers";
import { ValidationError } from "../errors.js";

/** A CID in the parts AssetToken stores (`IAssetToken.Cid`). */
export interface CidParts {
  digest: string; // 0x + 64 hex
  version: number;
  codec: bigint;
  hashCode: number;
}

const DAG_PB = 0x70;
const SHA2_256 = 0x12;

/**
 * Parses an IPFS CID (v0 `Qm...` or v1 in any multibase multiformats knows) into the contract's
 * parts. Only 32-byte digests fit on chain; a v0 CID is always dag-pb + sha2-256.
 *
 * @throws ValidationError `Invalid field: ipfsHash (...)`
 */
export function parseCid(text: string, field = "ipfsHash"): { parts: CidParts; canonical: string } {
  let cid: CID;
  try {
    cid = CID.parse(text.trim());
  } catch {
    throw new ValidationError(`Invalid field: ${field} (not a valid IPFS CID)`);
  }
  const digest = cid.multihash.digest;
  if (digest.length !== 32)
    throw new ValidationError(
      `Invalid field: ${field} (only CIDs with 32-byte digests are supported)`,
    );
  if (cid.multihash.code > 0xffff)
    throw new ValidationError(`Invalid field: ${field} (unsupported multihash function)`);
  if (cid.version === 0 && (cid.code !== DAG_PB || cid.multihash.code !== SHA2_256)) {
    throw new ValidationError(`Invalid field: ${field} (CIDv0 must be dag-pb sha2-256)`);
  }
  if (digest.every((b) => b === 0))
    throw new ValidationError(`Invalid field: ${field} (zero digest)`);
  return {
    parts: {
      digest: hexlify(digest),
      version: cid.version,
      codec: BigInt(cid.code),
      hashCode: cid.multihash.code,
    },
    canonical: cid.toString(),
  };
}

/**
 * The CIDv1 (raw codec 0x55, sha2-256) of exact bytes: what `ipfs add --cid-version 1` gives a
 * file that fits in one chunk (256 KiB; metadata documents are far smaller), and what every IPFS
 * gateway serves as those same bytes. A JSON-codec CID would name the same bytes but is not what
 * `ipfs add` or a pinning service produces, so it would not match a document added elsewhere.
 */
export async function rawCid(bytes: Uint8Array): Promise<{ parts: CidParts; canonical: string }> {
  const cid = CID.createV1(raw.code, await sha256.digest(bytes));
  return {
    parts: {
      digest: hexlify(cid.multihash.digest),
      version: 1,
      codec: BigInt(raw.code),
      hashCode: SHA2_256,
    },
    canonical: cid.toString(),
  };
}
