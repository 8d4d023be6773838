import { AbiCoder, isHexString } from "ethers";
import type { AssetToken } from "../../../../typechain-types/AssetToken.js";
import type { TypedContractMethod } from "../../../../typechain-types/common.js";
import { assetTokenInterface } from "./bindings.js";

/**
 * Calldata of the calls on the issuance path, from the same TypeChain ABI as the rest of the
 * relayer (`bindings.ts`). The fragment and its selector are resolved once and only the arguments
 * go through ethers' ABI coder: `Interface.encodeFunctionData` also looks the function up by name
 * and hashes the signature on every call. CPU time per `mint` encode on this machine (2 cores,
 * loaded): viem, which encoded it before the relayer kept to ethers alone, 9 µs;
 * `encodeFunctionData` 110 µs; this way 80 µs, about 2% of a core at 260 mints/s. A test checks
 * the bytes equal `encodeFunctionData`'s.
 */
const mintFragment = assetTokenInterface.getFunction("mint");
const mintSelector = mintFragment.selector;
const abiCoder = AbiCoder.defaultAbiCoder();

/** `mint`'s arguments as TypeChain types them, so a changed signature is a type error here. */
type MintArgs = AssetToken["mint"] extends TypedContractMethod<infer A> ? A : never;

/** A CID as `AssetToken` stores it (`metadata/cid.ts`). */
export interface MintCid {
  digest: string;
  version: number;
  codec: bigint;
  hashCode: number;
}

function hex(value: string, what: string): string {
  if (!isHexString(value)) throw new TypeError(`${what} is not hex`);
  return value;
}

/** The calldata of `AssetToken.mint(assetType, cid, passwordHash)`. */
export function encodeMint(assetType: string, cid: MintCid, passwordHash: string): string {
  const { digest, version, codec, hashCode } = cid;
  const args: MintArgs = [
    assetType,
    { digest: hex(digest, "cid.digest"), version, codec, hashCode },
    hex(passwordHash, "passwordHash"),
  ];
  // Both halves are ethers' lowercase 0x-hex; joining the strings skips `concat`'s byte round trip.
  return mintSelector + abiCoder.encode(mintFragment.inputs, args).slice(2);
}
