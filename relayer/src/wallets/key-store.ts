import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { BaseError } from "../errors.js";

/**
 * Where custodial secrets are sealed. The default is AES-256-GCM under the service master key;
 * a KMS-backed implementation can replace it without touching callers.
 */
export interface KeyStore {
  /** Encrypts `plaintext`; `context` (e.g. the wallet id) is bound as associated data. */
  seal(plaintext: string, context: string): string;
  /** Decrypts an envelope made by `seal` with the same `context`. Throws on tampering or a wrong key. */
  open(envelope: string, context: string): string;
  /** Short, non-secret fingerprint of the key, to detect a wrong master key at start. */
  readonly keyId: string;
}

export class KeyStoreError extends BaseError {
  override name = "KeyStoreError";
}

const VERSION = "v1";

/**
 * AES-256-GCM key store. Envelope: `v1:<keyId>:<iv b64>:<tag b64>:<ciphertext b64>`.
 *
 * @param masterKey 32 bytes (64 hex characters)
 */
export class AesGcmKeyStore implements KeyStore {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(masterKeyHex: string) {
    if (!/^[0-9a-fA-F]{64}$/.test(masterKeyHex)) {
      throw new KeyStoreError("MASTER_KEY must be 64 hex characters (32 bytes)");
    }
    this.#key = Buffer.from(masterKeyHex, "hex");
    this.keyId = createHash("sha256")
      .update("rwa-keystore-id")
      .update(this.#key)
      .digest("hex")
      .slice(0, 16);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(context, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      VERSION,
      this.keyId,
      iv.toString("base64"),
      tag.toString("base64"),
      ciphertext.toString("base64"),
    ].join(":");
  }

  open(envelope: string, context: string): string {
    const parts = envelope.split(":");
    if (parts.length !== 5 || parts[0] !== VERSION)
      throw new KeyStoreError("Unrecognised key envelope");
    const [, keyId, ivB64, tagB64, ctB64] = parts as [string, string, string, string, string];
    if (keyId !== this.keyId)
      throw new KeyStoreError("Envelope was sealed under a different master key");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(ivB64, "base64"));
      decipher.setAAD(Buffer.from(context, "utf8"));
      decipher.setAuthTag(Buffer.from(tagB64, "base64"));
      return Buffer.concat([
        decipher.update(Buffer.from(ctB64, "base64")),
        decipher.final(),
      ]).toString("utf8");
    } catch (cause) {
      throw new KeyStoreError("Envelope failed authentication", { cause });
    }
  }
}
