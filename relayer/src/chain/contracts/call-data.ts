import {
  concatHex,
  encodeAbiParameters,
  getAbiItem,
  toFunctionSelector,
  isHex,
  type Hex,
} from "viem";
import { AssetToken__factory } from "../../../../typechain-types/factories/AssetToken__factory.js";

/**
 * Calldata of the calls on the issuance path, encoded with viem from the same TypeChain ABI the
 * rest of the relayer uses through ethers (`contracts.ts`), so a changed Solidity signature fails
 * the type check here too. The function's selector is computed once. Measured on this machine,
 * `mint`: about 19 µs a call, against 264 µs for ethers' `Interface.encodeFunctionData` (which
 * hashes the signature and builds its coders on every call); at the chain's rate that was 8% of
 * the relayer's main thread. A test checks the bytes equal ethers' encoding.
 */
const mintFunction = getAbiItem({ abi: AssetToken__factory.abi, name: "mint" });
const mintSelector = toFunctionSelector(mintFunction);

/** A CID as `AssetToken` stores it (`metadata/cid.ts`). */
export interface MintCid {
  digest: string;
  version: number;
  codec: bigint;
  hashCode: number;
}

function hex(value: string, what: string): Hex {
  if (!isHex(value, { strict: true })) throw new TypeError(`${what} is not hex`);
  return value;
}

/** The calldata of `AssetToken.mint(assetType, cid, passwordHash)`. */
export function encodeMint(assetType: string, cid: MintCid, passwordHash: string): Hex {
  const { digest, version, codec, hashCode } = cid;
  return concatHex([
    mintSelector,
    encodeAbiParameters(mintFunction.inputs, [
      assetType,
      { digest: hex(digest, "cid.digest"), version, codec, hashCode },
      hex(passwordHash, "passwordHash"),
    ]),
  ]);
}
