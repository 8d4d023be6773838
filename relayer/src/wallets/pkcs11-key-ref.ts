import { BaseError } from "../errors.js";

/** A `wallets.encrypted_key` value that is not a PKCS#11 key reference of ours. */
export class Pkcs11KeyRefError extends BaseError {
  override name = "Pkcs11KeyRefError";
}

/** Where a wallet's key is: the token's label and the key objects' label (= CKA_ID, the wallet id). */
export interface Pkcs11KeyRef {
  token: string;
  object: string;
}

/** RFC 7512 percent-encoding: everything but unreserved characters. */
const encode = (value: string) =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * The key reference stored in `wallets.encrypted_key` for a PKCS#11 wallet: a PKCS#11 URI
 * (RFC 7512) naming the token and the private key object, which any PKCS#11 tool understands.
 * It is not a secret; the key itself never leaves the token.
 *
 * @example
 * formatPkcs11KeyRef("rwa", "wal_1a2b") // "pkcs11:token=rwa;object=wal_1a2b;type=private"
 */
export function formatPkcs11KeyRef(token: string, walletId: string): string {
  return `pkcs11:token=${encode(token)};object=${encode(walletId)};type=private`;
}

/**
 * Reads a reference made by `formatPkcs11KeyRef`.
 *
 * @throws Pkcs11KeyRefError when `ref` is not one
 */
export function parsePkcs11KeyRef(ref: string): Pkcs11KeyRef {
  if (!ref.startsWith("pkcs11:")) throw new Pkcs11KeyRefError("not a PKCS#11 key reference");
  const attributes = new Map<string, string>();
  for (const part of ref.slice("pkcs11:".length).split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new Pkcs11KeyRefError("malformed PKCS#11 key reference");
    try {
      attributes.set(part.slice(0, eq), decodeURIComponent(part.slice(eq + 1)));
    } catch (cause) {
      throw new Pkcs11KeyRefError("malformed PKCS#11 key reference", { cause });
    }
  }
  const token = attributes.get("token");
  const object = attributes.get("object");
  if (token === undefined || object === undefined || attributes.get("type") !== "private")
    throw new Pkcs11KeyRefError("PKCS#11 key reference lacks token, object or type=private");
  return { token, object };
}
