import { getBytes, Wallet } from "ethers";
import type { CustodialWalletRef, DigestSigner } from "./signer-backend.js";
import type { CustodialSigner, NewCustodialKey } from "./custodial-signer.js";
import type { KeyStore } from "./key-store.js";
import { signDigest } from "./secp256k1.js";

/**
 * The default signer backend: each wallet's secp256k1 key sealed with AES-256-GCM under the
 * master key (`KeyStore`), opened for one signing scope and dropped when it ends.
 */
export class LocalKeySigner implements CustodialSigner {
  readonly name = "local";
  readonly #keyStore: KeyStore;

  constructor(keyStore: KeyStore) {
    this.#keyStore = keyStore;
  }

  /** A fresh random key, sealed with the wallet id as associated data. */
  createKey(walletId: string): Promise<NewCustodialKey> {
    const wallet = Wallet.createRandom();
    return Promise.resolve({
      address: wallet.address,
      keyRef: this.#keyStore.seal(wallet.privateKey, walletId),
    });
  }

  /** Nothing to remove: the sealed key existed only in the registration that failed. */
  discardKey(): Promise<void> {
    return Promise.resolve();
  }

  /** Always: the sealed keys are in the database. */
  ensureAvailable(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async withDigestSigner<T>(
    wallet: CustodialWalletRef,
    work: (sign: DigestSigner) => Promise<T>,
  ): Promise<T> {
    let key: Uint8Array | undefined = getBytes(this.#keyStore.open(wallet.encryptedKey, wallet.id));
    const sign: DigestSigner = (digest) => {
      if (key === undefined) return Promise.reject(new Error("signer used after its scope ended"));
      return Promise.resolve(signDigest(key, digest));
    };
    try {
      return await work(sign);
    } finally {
      key?.fill(0);
      key = undefined;
    }
  }
}
