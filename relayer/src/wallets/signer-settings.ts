/**
 * The signer backends (wallets/create-signers.ts). `newWallets` (SIGNER) is where a new
 * organization's key is made; `pkcs11` (PKCS11_MODULE, PKCS11_TOKEN_LABEL, PKCS11_PIN) is the
 * token, opened whenever it is configured so that wallets made there keep signing.
 */
export interface SignerSettings {
  newWallets: "local" | "pkcs11";
  pkcs11?: Pkcs11Settings | undefined;
}

/** A PKCS#11 token: the module (shared library) path, the token's label, the user PIN. */
export interface Pkcs11Settings {
  module: string;
  tokenLabel: string;
  pin: string;
}
