import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { BaseError } from "../errors.js";

/**
 * Where custodial secrets are sealed. The default is AES-256-GCM under the service master key;
 * a KMS-backed implementation can replace it without touching callers.
 */
export interface KeyStore {
  /** Encrypts `plaintext` under the current key; `context` (e.g. the wallet id) is bound as associated data. */
  seal(plaintext: string, context: string): string;
  /**
   * Decrypts an envelope made by `seal` with the same `context`, under whichever key the envelope
   * names (the current one, or the previous one while a master-key rotation runs). Throws on
   * tampering or an unknown key.
   */
  open(envelope: string, context: string): string;
  /** Short, non-secret fingerprint of the current key (the one `seal` uses). */
  readonly keyId: string;
  /** Fingerprint of the previous key `open` still accepts during a rotation, if any. */
  readonly previousKeyId: string | undefined;
}

export class KeyStoreError extends BaseError {
  override name = "KeyStoreError";
}

const VERSION = "v1";
const HEX_KEY_RE = /^[0-9a-fA-F]{64}$/;

/**
 * The non-secret fingerprint of a 32-byte master key: the first 16 hex characters of
 * SHA-256("rwa-keystore-id" || key). It is what envelopes and the `settings` table record.
 *
 * @param masterKeyHex 64 hex characters
 * @throws KeyStoreError when the key is not 64 hex characters
 */
export function masterKeyId(masterKeyHex: string): string {
  return idOf(parseKey(masterKeyHex, "MASTER_KEY"));
}

function idOf(key: Buffer): string {
  return createHash("sha256").update("rwa-keystore-id").update(key).digest("hex").slice(0, 16);
}

/**
 * The key id an envelope names (its second field), or undefined when `envelope` is not a
 * `v1` envelope (a PKCS#11 URI, say). Reads no secret.
 *
 * @example
 * envelopeKeyId("v1:0a1b2c3d4e5f6071:...") // "0a1b2c3d4e5f6071"
 */
export function envelopeKeyId(envelope: string): string | undefined {
  const parts = envelope.split(":");
  return parts.length === 5 && parts[0] === VERSION ? parts[1] : undefined;
}

function parseKey(hex: string, variable: string): Buffer {
  if (!HEX_KEY_RE.test(hex))
    throw new KeyStoreError(`${variable} must be 64 hex characters (32 bytes)`);
  return Buffer.from(hex, "hex");
}

/**
 * AES-256-GCM key store. Envelope: `v1:<keyId>:<iv b64>:<tag b64>:<ciphertext b64>`; the key id
 * says which master key sealed it, so during a master-key rotation (docs/custody.md, "Rotating the master
 * key") envelopes under the previous key and the current key both open, and `seal` always uses
 * the current one.
 *
 * @param masterKeyHex the current key, 32 bytes as 64 hex characters (MASTER_KEY)
 * @param previousKeyHex the key being rotated away from (MASTER_KEY_PREVIOUS), if any
 * @example
 * const store = new AesGcmKeyStore(config.masterKey, config.masterKeyPrevious);
 */
export class AesGcmKeyStore implements KeyStore {
  readonly keyId: string;
  #previousKeyId: string | undefined;
  readonly #keys = new Map<string, Buffer>();

  constructor(masterKeyHex: string, previousKeyHex?: string) {
    const key = parseKey(masterKeyHex, "MASTER_KEY");
    this.keyId = idOf(key);
    this.#keys.set(this.keyId, key);
    if (previousKeyHex !== undefined) {
      const previous = parseKey(previousKeyHex, "MASTER_KEY_PREVIOUS");
      const previousId = idOf(previous);
      if (previousId === this.keyId)
        throw new KeyStoreError("MASTER_KEY_PREVIOUS must differ from MASTER_KEY");
      this.#previousKeyId = previousId;
      this.#keys.set(previousId, previous);
    }
  }

  get previousKeyId(): string | undefined {
    return this.#previousKeyId;
  }

  /**
   * Drops the previous key: from now on only envelopes under the current key open. The start-up
   * check calls it when the database says the rotation is already complete.
   */
  forgetPreviousKey(): void {
    if (this.#previousKeyId === undefined) return;
    this.#keys.get(this.#previousKeyId)?.fill(0);
    this.#keys.delete(this.#previousKeyId);
    this.#previousKeyId = undefined;
  }

  seal(plaintext: string, context: string): string {
    const key = this.#keys.get(this.keyId)!;
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
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
    const key = this.#keys.get(keyId);
    if (key === undefined) {
      throw new KeyStoreError(
        `Envelope was sealed under a different master key (key id ${keyId}; this process has ` +
          `${[...this.#keys.keys()].join(" and ")})`,
        { details: { envelopeKeyId: keyId } },
      );
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(ivB64, "base64"));
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
