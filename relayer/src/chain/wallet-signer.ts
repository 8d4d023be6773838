import { keccak256, Transaction, type Signature } from "ethers";

/**
 * The fields of a transaction the engine signs. `type` 2 is EIP-1559; `type` 0 is a legacy
 * transaction whose `gasPrice` is `maxFeePerGas` (both fee fields hold the gas price: see
 * `FeeQuote`), for chains whose blocks carry no base fee.
 */
export interface UnsignedTx {
  chainId: number;
  nonce: number;
  to: string;
  data: string;
  value: bigint;
  gasLimit: bigint;
  type: 0 | 2;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A signed transaction ready for `eth_sendRawTransaction`. */
export interface SignedTx {
  hash: string;
  raw: string;
}

/** Signs transactions for one wallet; exists only for the duration of `withWalletSigner`. */
export type TxSigner = (tx: UnsignedTx) => Promise<SignedTx>;

/** Signs a 32-byte digest (`0x…`) with one wallet's key: a full signature, `v` recovered. */
export type DigestSigner = (digest: string) => Promise<Signature>;

/** The wallet fields a signer backend finds its key by. */
export interface CustodialWalletRef {
  id: string;
  address: string;
  /** The local backend's sealed key, or another backend's reference to its key. */
  encryptedKey: string;
  /** The backend that holds the key (`wallets.signer_backend`: `local`, `pkcs11`). */
  signerBackend: string;
}

/**
 * Where custodial keys live and how they sign: the one asynchronous signing seam of the service
 * (docs/architecture.md). The local backend decrypts a sealed key for the duration of `work`; a
 * hardware backend (PKCS#11) signs inside the token and never hands a key out. A backend that
 * cannot be sure which key signed (a token) recovers the signer and refuses a mismatch.
 */
export interface SignerBackend {
  /** Short name shown in logs and status (`local`, `pkcs11`). */
  readonly name: string;
  /** Opens `wallet`'s key for the duration of `work`, which signs digests with it. */
  withDigestSigner<T>(
    wallet: CustodialWalletRef,
    work: (sign: DigestSigner) => Promise<T>,
  ): Promise<T>;
}

/** The transaction object ethers serialises for `fields`. */
export function transactionOf(fields: UnsignedTx): Transaction {
  const common = {
    chainId: fields.chainId,
    nonce: fields.nonce,
    to: fields.to,
    data: fields.data,
    value: fields.value,
    gasLimit: fields.gasLimit,
  };
  return fields.type === 0
    ? Transaction.from({ ...common, type: 0, gasPrice: fields.maxFeePerGas })
    : Transaction.from({
        ...common,
        type: 2,
        maxFeePerGas: fields.maxFeePerGas,
        maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
      });
}

/**
 * Opens a custodial wallet's key through its backend, hands a transaction-signing function to
 * `work`, and closes the key when `work` returns. The key is never logged. The engine records
 * each attempt's signed bytes before broadcasting them, so it never needs the same signature
 * twice (an HSM's ECDSA signatures are not deterministic).
 *
 * @example
 * const signed = await withWalletSigner(signers, wallet, (sign) => sign(tx));
 */
export async function withWalletSigner<T>(
  backend: SignerBackend,
  wallet: CustodialWalletRef,
  work: (sign: TxSigner) => Promise<T>,
): Promise<T> {
  return backend.withDigestSigner(wallet, async (signDigest) => {
    let open = true;
    const sign: TxSigner = async (fields) => {
      if (!open) throw new Error("signer used after its scope ended");
      const tx = transactionOf(fields);
      tx.signature = await signDigest(tx.unsignedHash);
      // ethers serialises again on each read of `serialized` and of `hash`: once here.
      const raw = tx.serialized;
      return { hash: keccak256(raw), raw };
    };
    try {
      return await work(sign);
    } finally {
      open = false;
    }
  });
}
