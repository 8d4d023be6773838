import { Secret, TOTP } from "otpauth";

/**
 * TOTP (RFC 6238) with the otpauth library: SHA-1, 6 digits, 30 s steps, what every
 * authenticator app reads from an `otpauth://` URI. A code is accepted for the current step and
 * one step either side (clock drift), and only for a step later than the last one accepted
 * (`users.totp_last_step`): a code is accepted once.
 */

const ISSUER = "RWA console";

function totpOf(secret: string, email: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret),
  });
}

/** A new secret (160 bits, base32) and its enrollment URI. */
export function newTotpSecret(email: string): { secret: string; otpauthUri: string } {
  const secret = new Secret({ size: 20 }).base32;
  return { secret, otpauthUri: totpOf(secret, email).toString() };
}

/**
 * The time step `code` is valid for (now, or one step either side), or undefined. The caller
 * accepts it only when the step is later than the last one accepted.
 */
export function totpStep(
  secret: string,
  email: string,
  code: string,
  now = Date.now(),
): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(secret, email).validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(now / 30_000) + delta;
}

/** The code of a secret at a time (tests, and the console's own enrollment check). */
export function totpCode(secret: string, email: string, now = Date.now()): string {
  return totpOf(secret, email).generate({ timestamp: now });
}
