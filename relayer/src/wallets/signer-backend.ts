import { encodeRlp, keccak256, type Signature } from "ethers";

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

/** Big-endian bytes of a non-negative integer, none for zero (RLP's integers). */
function integerBytes(value: bigint | number): Uint8Array {
  if (value === 0 || value === 0n) return new Uint8Array(0);
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex");
}

/**
 * The bytes of `0x…` hex (the address, the call data). `Buffer.from` would silently drop an odd
 * digit or stop at a non-hex one: such a field is a bug, refused before anything is signed.
 */
function hexBytes(hex: string): Uint8Array {
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new TypeError(`not whole hex bytes: ${hex}`);
  return Buffer.from(hex.slice(2), "hex");
}

/**
 * The RLP fields of `fields` as EIP-1559 (type 2, access list empty) or EIP-155 legacy (type 0)
 * lays them out, the signature not included; as bytes, which ethers' `encodeRlp` takes without
 * parsing hex.
 */
function payloadOf(fields: UnsignedTx): Array<Uint8Array | Uint8Array[]> {
  const tail = [
    integerBytes(fields.gasLimit),
    hexBytes(fields.to),
    integerBytes(fields.value),
    hexBytes(fields.data),
  ];
  return fields.type === 0
    ? [integerBytes(fields.nonce), integerBytes(fields.maxFeePerGas), ...tail]
    : [
        integerBytes(fields.chainId),
        integerBytes(fields.nonce),
        integerBytes(fields.maxPriorityFeePerGas),
        integerBytes(fields.maxFeePerGas),
        ...tail,
        [],
      ];
}

/** keccak-256 of `0x…` hex, parsed natively (ethers' own hex parser loops in JavaScript). */
const keccakOfHex = (hex: string): string => keccak256(Buffer.from(hex.slice(2), "hex"));

/**
 * The digest a key signs for `fields`: keccak-256 of the EIP-2718 typed payload (type 2), or of
 * the EIP-155 legacy payload with the chain id and two empty fields.
 */
export function unsignedDigest(fields: UnsignedTx): string {
  const payload = payloadOf(fields);
  const encoded =
    fields.type === 0
      ? encodeRlp([...payload, integerBytes(fields.chainId), new Uint8Array(0), new Uint8Array(0)])
      : `0x02${encodeRlp(payload).slice(2)}`;
  return keccakOfHex(encoded);
}

/**
 * The raw signed transaction (`eth_sendRawTransaction`'s bytes) of `fields` with `signature`:
 * `yParity, r, s` appended (type 2), or `v = chainId × 2 + 35 + yParity, r, s` (legacy). Byte for
 * byte what ethers' `Transaction` serialises (a test compares them for random transactions);
 * ethers' own path parsed every hex field again on each of its three serialisations.
 */
export function signedTransaction(fields: UnsignedTx, signature: Signature): string {
  const r = integerBytes(BigInt(signature.r));
  const s = integerBytes(BigInt(signature.s));
  const payload = payloadOf(fields);
  if (fields.type === 0) {
    const v = BigInt(fields.chainId) * 2n + 35n + BigInt(signature.yParity);
    return encodeRlp([...payload, integerBytes(v), r, s]);
  }
  return `0x02${encodeRlp([...payload, integerBytes(signature.yParity), r, s]).slice(2)}`;
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
      const raw = signedTransaction(fields, await signDigest(unsignedDigest(fields)));
      return { hash: keccakOfHex(raw), raw };
    };
    try {
      return await work(sign);
    } finally {
      open = false;
    }
  });
}
