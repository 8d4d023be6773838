import { computeAddress, getAddress, recoverAddress, Signature, toBeHex } from "ethers";
import { BaseError } from "../errors.js";

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
    if (recoverAddress(digest, signature) === expected) return signature;
  }
  throw new SignerKeyMismatchError(
    `the signature recovers to neither key of wallet ${expected}: refusing to use it`,
    { details: { address: expected } },
  );
}
