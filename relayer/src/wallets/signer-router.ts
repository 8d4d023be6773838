import type { CustodialWalletRef, DigestSigner, SignerBackend } from "./signer-backend.js";
import { ConfigError, HsmUnavailableError } from "../errors.js";
import type { CustodialSigner, NewCustodialKey, SignerBackendName } from "./custodial-signer.js";

/** A new wallet's key and the backend that holds it (`wallets.signer_backend`). */
export interface RoutedCustodialKey extends NewCustodialKey {
  backend: SignerBackendName;
}

/**
 * The process's signer: routes each wallet to the backend its key was made in
 * (`wallets.signer_backend`, carried on `CustodialWalletRef.signerBackend`), and makes new
 * organizations' keys in the configured one (SIGNER). The engine signs through it as through any
 * `SignerBackend`.
 */
export class SignerRouter implements SignerBackend {
  readonly name = "router";
  /** Where new wallets' keys are made (SIGNER). */
  readonly newWallets: SignerBackendName;
  readonly #backends: ReadonlyMap<string, CustodialSigner>;

  /**
   * @param backends the backends this process has configured (`local` always)
   * @param newWallets SIGNER: must be one of `backends`
   * @throws ConfigError when SIGNER names a backend that is not configured
   */
  constructor(backends: readonly CustodialSigner[], newWallets: SignerBackendName) {
    this.#backends = new Map(backends.map((b) => [b.name, b]));
    if (!this.#backends.has(newWallets))
      throw new ConfigError(`Invalid SIGNER: the ${newWallets} signer backend is not configured`, {
        details: { variable: "SIGNER" },
      });
    this.newWallets = newWallets;
  }

  /** The names of the configured backends. */
  get configured(): SignerBackendName[] {
    return [...this.#backends.keys()] as SignerBackendName[];
  }

  /** The configured backend called `name`, if any. */
  backend(name: string): CustodialSigner | undefined {
    return this.#backends.get(name);
  }

  /** Makes a key for a new wallet in the SIGNER backend. */
  async createKey(walletId: string): Promise<RoutedCustodialKey> {
    const backend = this.#backends.get(this.newWallets)!;
    return { backend: backend.name, ...(await backend.createKey(walletId)) };
  }

  /** Best effort: removes a key `createKey` made for a wallet that was never stored. */
  async discardKey(key: RoutedCustodialKey, walletId: string): Promise<void> {
    await this.#backends.get(key.backend)?.discardKey(walletId, key.keyRef);
  }

  /**
   * Resolves when `backend` (a wallet's `signerBackend`) can sign now.
   *
   * @throws HsmUnavailableError (503) while it cannot, or when this process has not configured it
   */
  async ensureAvailable(backend: string): Promise<void> {
    const configured = this.#backends.get(backend);
    if (configured === undefined) throw notConfigured(backend);
    await configured.ensureAvailable();
  }

  withDigestSigner<T>(
    wallet: CustodialWalletRef,
    work: (sign: DigestSigner) => Promise<T>,
  ): Promise<T> {
    const backend = this.#backends.get(wallet.signerBackend);
    if (backend === undefined) {
      // The start-up check refuses this; a wallet made since by a process configured otherwise
      // waits here (the engine retries) until a process with that backend takes it over.
      return Promise.reject(notConfigured(wallet.signerBackend, wallet.id));
    }
    return backend.withDigestSigner(wallet, work);
  }

  /** Closes every backend. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#backends.values()].map((b) => b.close()));
  }
}

function notConfigured(backend: string, walletId?: string): HsmUnavailableError {
  return new HsmUnavailableError(
    `HSM unavailable: ${walletId === undefined ? "the wallet" : `wallet ${walletId}`}'s key is ` +
      `in the ${backend} signer backend, which this relayer has not configured`,
    { details: { walletId, backend } },
  );
}
