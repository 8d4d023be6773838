import { createRequire } from "node:module";
import {
  computeAddress,
  getAddress,
  getBytes,
  hexlify,
  recoverAddress,
  Signature,
  SigningKey,
  toBeHex,
} from "ethers";
import { BaseError } from "../errors.js";

/** What this module uses of libsecp256k1's Node binding (the `secp256k1` package). */
interface NativeSecp256k1 {
  ecdsaSign(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  ecdsaRecover(
    signature: Uint8Array,
    recid: number,
    digest: Uint8Array,
    compressed: boolean,
  ): Uint8Array;
}

/**
 * libsecp256k1 (bitcoin-core's C library) through the `secp256k1` package's prebuilt binding:
 * a signature in about a tenth of the time of ethers' JavaScript curve, which was about a sixth
 * of the relayer's CPU per issuance. `undefined` where the binding does not load (a platform
 * without a prebuilt binary): ethers' curve then signs. The package's own fallback (`elliptic`)
 * is never used.
 */
const native: NativeSecp256k1 | undefined = (() => {
  try {
    return createRequire(import.meta.url)("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    return undefined;
  }
})();

/** Which implementation signs and recovers: `libsecp256k1` or `ethers` (the fallback). */
export const SECP256K1_IMPLEMENTATION = native === undefined ? "ethers" : "libsecp256k1";

/**
 * Signs a 32-byte digest with a private key: RFC 6979 nonce, low `s`, recovery id. The same
 * signature bytes whichever implementation runs (both are deterministic and normalise `s`).
 *
 * @param privateKey 32 bytes
 * @param digest `0x` and 64 hex digits
 */
export function signDigest(privateKey: Uint8Array, digest: string): Signature {
  if (native === undefined) return new SigningKey(privateKey).sign(digest);
  const { signature, recid } = native.ecdsaSign(getBytes(digest), privateKey);
  return Signature.from({
    r: hexlify(signature.subarray(0, 32)),
    s: hexlify(signature.subarray(32, 64)),
    yParity: recid === 0 ? 0 : 1,
  });
}

/** The address whose key made `signature` over `digest` (throws on a signature of no key). */
function recoverSigner(digest: string, signature: Signature): string {
  if (native === undefined) return recoverAddress(digest, signature);
  const rs = getBytes(signature.r + signature.s.slice(2));
  const point = native.ecdsaRecover(rs, signature.yParity, getBytes(digest), false);
  return computeAddress(hexlify(point));
}

/** DER encoding of the secp256k1 curve's OID (1.3.132.0.10): a key's CKA_EC_PARAMS. */
export const SECP256K1_EC_PARAMS = Buffer.from("06052b8104000a", "hex");

/** The order n of secp256k1's group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;

/** A signature that recovers to no key of the wallet: the backend signed with some other key. */
export class SignerKeyMismatchError extends BaseError {
  override name = "SignerKeyMismatchError";
}

/**
 * The address of an uncompressed secp256k1 point, as a PKCS#11 token reports it in CKA_EC_POINT:
 * a DER OCTET STRING around the 65-byte point (`04 41 04 x y`), or, from modules that skip the
 * wrapping, the bare 65 bytes.
 *
 * @throws SignerKeyMismatchError when the bytes are neither
 */
export function addressOfEcPoint(ecPoint: Uint8Array): string {
  const bytes = Buffer.from(ecPoint);
  let point: Buffer;
  if (bytes.length === 67 && bytes[0] === 0x04 && bytes[1] === 0x41) point = bytes.subarray(2);
  else if (bytes.length === 65) point = bytes;
  else
    throw new SignerKeyMismatchError(
      `CKA_EC_POINT is not an uncompressed secp256k1 point (${bytes.length} bytes)`,
    );
  if (point[0] !== 0x04)
    throw new SignerKeyMismatchError("CKA_EC_POINT is not an uncompressed secp256k1 point");
  return computeAddress(`0x${point.toString("hex")}`);
}

/**
 * Turns a token's raw ECDSA signature (`r || s`, 32 bytes each, as CKM_ECDSA returns it) over
 * `digest` into the signature Ethereum accepts: `s` normalised to the lower half of the group
 * (EIP-2), and the recovery id found by trying both against `address`.
 *
 * @param digest the 32-byte digest that was signed (`0x…`)
 * @param rs the token's output
 * @param address the wallet's address: the only key this signature may come from
 * @throws SignerKeyMismatchError when neither recovery id gives `address` (the token signed with
 *   another key): the caller must not use the signature
 * @example
 * const signature = ethereumSignature(tx.unsignedHash, await token.sign(key, digest), wallet.address);
 */
export function ethereumSignature(digest: string, rs: Uint8Array, address: string): Signature {
  if (rs.length !== 64)
    throw new SignerKeyMismatchError(`expected a 64-byte r||s signature, got ${rs.length} bytes`);
  const bytes = Buffer.from(rs);
  const r = BigInt(`0x${bytes.subarray(0, 32).toString("hex")}`);
  let s = BigInt(`0x${bytes.subarray(32).toString("hex")}`);
  if (s > HALF_N) s = N - s;
  const expected = getAddress(address);
  for (const yParity of [0, 1] as const) {
    const signature = Signature.from({ r: toBeHex(r, 32), s: toBeHex(s, 32), yParity });
    let signer: string | undefined;
    try {
      signer = recoverSigner(digest, signature);
    } catch {
      signer = undefined; // no point for this recovery id
    }
    if (signer === expected) return signature;
  }
  throw new SignerKeyMismatchError(
    `the signature recovers to neither key of wallet ${expected}: refusing to use it`,
    { details: { address: expected } },
  );
}
