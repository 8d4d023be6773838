import pkcs11js from "pkcs11js";
import { getBytes } from "ethers";
import type { CustodialWalletRef, DigestSigner } from "./signer-backend.js";
import type { Pkcs11Settings } from "./signer-settings.js";
import { HsmUnavailableError } from "../errors.js";
import type { CustodialSigner, NewCustodialKey } from "./custodial-signer.js";
import { formatPkcs11KeyRef, parsePkcs11KeyRef } from "./pkcs11-key-ref.js";
import { addressOfEcPoint, ethereumSignature, SECP256K1_EC_PARAMS } from "./secp256k1.js";
import {
  Pkcs11Token,
  type Pkcs11Handle,
  type Pkcs11Module,
  type Pkcs11TokenOptions,
} from "./pkcs11-token.js";

/** Room for any ECDSA signature a module returns (secp256k1's r||s is 64 bytes). */
const SIGNATURE_BUFFER = 132;

/**
 * The PKCS#11 signer backend (SIGNER=pkcs11): each organization's secp256k1 key is made inside
 * the token (CKM_EC_KEY_PAIR_GEN), private, sensitive and never extractable, labelled and
 * identified by the wallet id; it signs there (CKM_ECDSA over the transaction's 32-byte digest)
 * and never reaches this process. The relayer only turns the token's `r || s` into an Ethereum
 * signature: low `s`, and the recovery id that gives the wallet's own address; a signature that
 * recovers to another address is refused (`SignerKeyMismatchError`), never used.
 *
 * `wallets.encrypted_key` holds the key's PKCS#11 URI for these wallets (`pkcs11-key-ref.ts`).
 */
export class Pkcs11Signer implements CustodialSigner {
  readonly name = "pkcs11";
  readonly token: Pkcs11Token;
  /** Private-key handles by wallet id, valid for the token generation they were found in. */
  readonly #keys = new Map<string, { handle: Pkcs11Handle; generation: number }>();

  constructor(token: Pkcs11Token) {
    this.token = token;
  }

  /**
   * Opens the token (`Pkcs11Token.open`).
   *
   * @throws ConfigError naming PKCS11_MODULE, PKCS11_TOKEN_LABEL or PKCS11_PIN
   */
  static open(settings: Pkcs11Settings, options: Pkcs11TokenOptions = {}): Pkcs11Signer {
    return new Pkcs11Signer(Pkcs11Token.open(settings, options));
  }

  /**
   * Makes the wallet's key pair in the token: the private key CKA_TOKEN, CKA_PRIVATE,
   * CKA_SENSITIVE, not CKA_EXTRACTABLE, for signing only; the address comes from the public
   * key's CKA_EC_POINT.
   *
   * @throws HsmUnavailableError when the token cannot make it (gone, full)
   */
  async createKey(walletId: string): Promise<NewCustodialKey> {
    const id = Buffer.from(walletId, "utf8");
    const address = await this.token.withSession(async (session, lib) => {
      const pair = await lib.C_GenerateKeyPairAsync(
        session,
        { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_PRIVATE, value: false },
          { type: pkcs11js.CKA_EC_PARAMS, value: SECP256K1_EC_PARAMS },
          { type: pkcs11js.CKA_VERIFY, value: true },
          { type: pkcs11js.CKA_LABEL, value: walletId },
          { type: pkcs11js.CKA_ID, value: id },
        ],
        [
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_PRIVATE, value: true },
          { type: pkcs11js.CKA_SENSITIVE, value: true },
          { type: pkcs11js.CKA_EXTRACTABLE, value: false },
          { type: pkcs11js.CKA_SIGN, value: true },
          { type: pkcs11js.CKA_DERIVE, value: false },
          { type: pkcs11js.CKA_DECRYPT, value: false },
          { type: pkcs11js.CKA_UNWRAP, value: false },
          { type: pkcs11js.CKA_LABEL, value: walletId },
          { type: pkcs11js.CKA_ID, value: id },
        ],
      );
      const [point] = lib.C_GetAttributeValue(session, pair.publicKey, [
        { type: pkcs11js.CKA_EC_POINT },
      ]);
      this.#keys.set(walletId, { handle: pair.privateKey, generation: this.token.generation });
      return addressOfEcPoint(point!.value);
    });
    return { address, keyRef: formatPkcs11KeyRef(this.token.label, walletId) };
  }

  /** Destroys the key pair made for `walletId` (registration failed before storing it). */
  async discardKey(walletId: string): Promise<void> {
    this.#keys.delete(walletId);
    await this.token.withSession((session, lib) => {
      for (const handle of findObjects(lib, session, walletId))
        lib.C_DestroyObject(session, handle);
    });
  }

  ensureAvailable(): Promise<void> {
    return this.token.ensureAvailable();
  }

  async close(): Promise<void> {
    this.#keys.clear();
    await this.token.close();
  }

  async withDigestSigner<T>(
    wallet: CustodialWalletRef,
    work: (sign: DigestSigner) => Promise<T>,
  ): Promise<T> {
    const ref = parsePkcs11KeyRef(wallet.encryptedKey);
    if (ref.token !== this.token.label || ref.object !== wallet.id)
      throw new HsmUnavailableError(
        `HSM unavailable: wallet ${wallet.id}'s key is on PKCS#11 token "${ref.token}", ` +
          `this relayer uses "${this.token.label}" (PKCS11_TOKEN_LABEL)`,
        { details: { walletId: wallet.id, tokenLabel: ref.token } },
      );
    let open = true;
    const sign: DigestSigner = async (digest) => {
      if (!open) throw new Error("signer used after its scope ended");
      const rs = await this.token.withSession(async (session, lib) => {
        const key = this.#privateKey(lib, session, wallet.id);
        lib.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, key);
        return lib.C_SignAsync(
          session,
          Buffer.from(getBytes(digest)),
          Buffer.alloc(SIGNATURE_BUFFER),
        );
      });
      return ethereumSignature(digest, rs, wallet.address);
    };
    try {
      return await work(sign);
    } finally {
      open = false;
    }
  }

  /** The wallet's private key: cached for the token's generation, else found by CKA_ID. */
  #privateKey(lib: Pkcs11Module, session: Pkcs11Handle, walletId: string): Pkcs11Handle {
    const cached = this.#keys.get(walletId);
    if (cached !== undefined && cached.generation === this.token.generation) return cached.handle;
    const found = findObjects(lib, session, walletId, pkcs11js.CKO_PRIVATE_KEY);
    if (found.length !== 1)
      throw new HsmUnavailableError(
        found.length === 0
          ? `HSM unavailable: no key for wallet ${walletId} on PKCS#11 token "${this.token.label}"`
          : `HSM unavailable: ${found.length} keys for wallet ${walletId} on PKCS#11 token ` +
            `"${this.token.label}"; refusing to pick one`,
        { details: { walletId, tokenLabel: this.token.label } },
      );
    this.#keys.set(walletId, { handle: found[0]!, generation: this.token.generation });
    return found[0]!;
  }
}

/** The token's objects with CKA_ID = the wallet id (of `objectClass` when given). */
function findObjects(
  lib: Pkcs11Module,
  session: Pkcs11Handle,
  walletId: string,
  objectClass?: number,
): Pkcs11Handle[] {
  const template: pkcs11js.Template = [
    { type: pkcs11js.CKA_ID, value: Buffer.from(walletId, "utf8") },
  ];
  if (objectClass !== undefined) template.push({ type: pkcs11js.CKA_CLASS, value: objectClass });
  lib.C_FindObjectsInit(session, template);
  try {
    return lib.C_FindObjects(session, 16);
  } finally {
    lib.C_FindObjectsFinal(session);
  }
}
