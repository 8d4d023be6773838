import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { ValidationError } from "../errors.js";

/**
 * Password hashing with scrypt from `node:crypto`, at the parameters OWASP's Password Storage
 * Cheat Sheet gives for scrypt: N = 2^17, r = 8, p = 1 (128 MiB per hash), a 16-byte random salt
 * and a 32-byte key. Stored as `scrypt$<N>$<r>$<p>$<salt b64url>$<key b64url>`, so the
 * parameters can be raised later and old hashes still verify.
 */

const N = 2 ** 17;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
/** scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is below OWASP's N. */
const MAX_MEM = 256 * 1024 * 1024;

/** Shortest password accepted (OWASP ASVS 2.1.1: at least 12 characters). */
export const MIN_PASSWORD_LENGTH = 12;
/** Longest (ASVS 2.1.2 permits at least 64; scrypt takes any length, the bound caps the work). */
export const MAX_PASSWORD_LENGTH = 256;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_BYTES, options, (error, key) =>
      error === null ? resolve(key) : reject(error),
    ),
  );
}

/**
 * Checks a new password's length (400 otherwise) and hashes it.
 *
 * @throws ValidationError `Invalid field: password (must be 12 to 256 characters)`
 */
export async function hashPassword(password: string): Promise<string> {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH)
    throw new ValidationError(
      `Invalid field: password (must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters)`,
    );
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P, maxmem: MAX_MEM });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** A hash of nothing anyone knows: verified against when the email is unknown (same work). */
let dummy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored` (constant-time compare). With `stored` undefined (an
 * unknown email, a person who has not accepted their invitation), a dummy hash is verified
 * instead and the answer is false: the same work, so timing does not tell an unknown email.
 */
export async function verifyPassword(
  password: string,
  stored: string | undefined,
): Promise<boolean> {
  const target = stored ?? (await (dummy ??= hashPassword(randomBytes(24).toString("base64url"))));
  const parts = target.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4]!, "base64url");
  const expected = Buffer.from(parts[5]!, "base64url");
  if (password.length > MAX_PASSWORD_LENGTH * 2) return false;
  const key = await derive(password, salt, { N: n!, r: r!, p: p!, maxmem: MAX_MEM });
  return key.length === expected.length && timingSafeEqual(key, expected) && stored !== undefined;
}
