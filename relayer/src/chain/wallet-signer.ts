import { SigningKey, Transaction } from "ethers";
import type { KeyStore } from "../wallets/key-store.js";

/** The fields of an EIP-1559 transaction the engine signs. */
export interface UnsignedTx {
  chainId: number;
  nonce: number;
  to: string;
  data: string;
  value: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A signed transaction ready for `eth_sendRawTransaction`. */
export interface SignedTx {
  hash: string;
  raw: string;
}

/** Signs transactions for one wallet; exists only for the duration of `withWalletSigner`. */
export type TxSigner = (tx: UnsignedTx) => SignedTx;

/**
 * Decrypts a custodial wallet key, hands a signing function to `work`, and drops the key when
 * `work` returns. The key never leaves this function's scope and is never logged. Signing is
 * deterministic (RFC 6979): the same fields always give the same hash, which is what lets the
 * engine record a hash before broadcasting it.
 *
 * @example
 * const signed = await withWalletSigner(ctx.keyStore, wallet, async (sign) => sign(tx));
 */
export async function withWalletSigner<T>(
  keyStore: KeyStore,
  wallet: { id: string; encryptedKey: string },
  work: (sign: TxSigner) => Promise<T>,
): Promise<T> {
  let key: SigningKey | undefined = new SigningKey(keyStore.open(wallet.encryptedKey, wallet.id));
  const sign: TxSigner = (fields) => {
    if (key === undefined) throw new Error("signer used after its scope ended");
    const tx = Transaction.from({ type: 2, ...fields });
    tx.signature = key.sign(tx.unsignedHash);
    return { hash: tx.hash as string, raw: tx.serialized };
  };
  try {
    return await work(sign);
  } finally {
    key = undefined;
  }
}
