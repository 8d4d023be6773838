import type { SignerBackend } from "./signer-backend.js";

/** The signer backends a wallet's key can live in (`wallets.signer_backend`). */
export const SIGNER_BACKENDS = ["local", "pkcs11"] as const;
export type SignerBackendName = (typeof SIGNER_BACKENDS)[number];

/** A key a backend has just made for a new wallet. */
export interface NewCustodialKey {
  /** The checksummed address of the key. */
  address: string;
  /**
   * What the backend finds the key by again, stored in `wallets.encrypted_key`: the sealed key
   * for `local`, a PKCS#11 URI naming the token and the object for `pkcs11`. Never a bare key.
   */
  keyRef: string;
}

/**
 * A signer backend that also makes keys: the local key store or a PKCS#11 token
 * (docs/architecture.md, "Custodial keys"). Signing goes through the engine's seam
 * (`SignerBackend`); making and discarding keys is what organization registration needs.
 */
export interface CustodialSigner extends SignerBackend {
  readonly name: SignerBackendName;
  /** Makes a new secp256k1 key for `walletId` wherever this backend keeps keys. */
  createKey(walletId: string): Promise<NewCustodialKey>;
  /**
   * Removes a key made by `createKey` whose wallet was never stored (registration failed after
   * the key was made). Best effort: a key left behind is unused, never dangerous.
   */
  discardKey(walletId: string, keyRef: string): Promise<void>;
  /**
   * Resolves when the backend can sign now; throws `HsmUnavailableError` (503) while it is known
   * not to (a token that failed and has not come back). Writes check it before they are queued.
   */
  ensureAvailable(): Promise<void>;
  /** Releases what the backend holds (sessions, the loaded module). */
  close(): Promise<void>;
}
