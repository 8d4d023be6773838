import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import {
  computeAddress,
  getAddress,
  getBytes,
  hexlify,
  recoverAddress,
  SigningKey,
  Transaction,
  Wallet,
} from "ethers";
import { parseEnv } from "../../relayer/src/config.js";
import {
  signedTransaction,
  unsignedDigest,
  type CustodialWalletRef,
  type UnsignedTx,
} from "../../relayer/src/wallets/signer-backend.js";
import { ConfigError, HsmUnavailableError, UnavailableError } from "../../relayer/src/errors.js";
import { statusOf } from "../../relayer/src/http/error-handler.js";
import { isSecretFieldName } from "../../relayer/src/logger.js";
import { AesGcmKeyStore } from "../../relayer/src/wallets/key-store.js";
import { LocalKeySigner } from "../../relayer/src/wallets/local-signer.js";
import {
  formatPkcs11KeyRef,
  parsePkcs11KeyRef,
  Pkcs11KeyRefError,
} from "../../relayer/src/wallets/pkcs11-key-ref.js";
import {
  addressOfEcPoint,
  ethereumSignature,
  SECP256K1_IMPLEMENTATION,
  signDigest,
  SignerKeyMismatchError,
} from "../../relayer/src/wallets/secp256k1.js";
import { SignerRouter } from "../../relayer/src/wallets/signer-router.js";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** A token's raw output for `digest`: r || s, with s in the upper half when `highS`. */
function tokenSignature(key: SigningKey, digest: string, highS: boolean): Buffer {
  const signature = key.sign(digest);
  const s = highS ? N - BigInt(signature.s) : BigInt(signature.s);
  return Buffer.concat([
    Buffer.from(getBytes(signature.r)),
    Buffer.from(s.toString(16).padStart(64, "0"), "hex"),
  ]);
}

describe("signDigest (libsecp256k1, ethers' curve where the binding does not load)", () => {
  test("the prebuilt libsecp256k1 binding loads on this platform", () => {
    assert.equal(SECP256K1_IMPLEMENTATION, "libsecp256k1");
  });

  test("gives ethers' exact signature (RFC 6979, low s, recovery id) for 300 random keys and digests", () => {
    for (let i = 0; i < 300; i++) {
      const privateKey = randomBytes(32);
      const digest = hexlify(randomBytes(32));
      const ours = signDigest(privateKey, digest);
      const theirs = new SigningKey(privateKey).sign(digest);
      assert.equal(ours.serialized, theirs.serialized, `key ${hexlify(privateKey)}`);
      assert.equal(
        recoverAddress(digest, ours),
        computeAddress(new SigningKey(privateKey).publicKey),
      );
    }
  });
});

describe("ethereumSignature (a token's r||s to an Ethereum signature)", () => {
  const key = new SigningKey(hexlify(randomBytes(32)));
  const address = computeAddress(key.publicKey);

  test("ethereumSignature normalises a high s and recovers the wallet's address", () => {
    for (let i = 0; i < 20; i++) {
      const digest = hexlify(randomBytes(32));
      const signature = ethereumSignature(digest, tokenSignature(key, digest, true), address);
      assert.ok(BigInt(signature.s) <= N >> 1n);
      assert.equal(recoverAddress(digest, signature), address);
    }
  });

  test("ethereumSignature throws SignerKeyMismatchError when neither recovery id gives the address", () => {
    const digest = hexlify(randomBytes(32));
    assert.throws(
      () =>
        ethereumSignature(
          digest,
          tokenSignature(key, digest, false),
          Wallet.createRandom().address,
        ),
      SignerKeyMismatchError,
    );
  });

  test("ethereumSignature refuses an output that is not 64 bytes", () => {
    assert.throws(
      () => ethereumSignature(hexlify(randomBytes(32)), Buffer.alloc(70), address),
      SignerKeyMismatchError,
    );
  });

  test("addressOfEcPoint reads CKA_EC_POINT as a DER OCTET STRING or as the bare point", () => {
    const point = Buffer.from(getBytes(key.publicKey));
    assert.equal(point.length, 65);
    assert.equal(addressOfEcPoint(Buffer.concat([Buffer.from([0x04, 0x41]), point])), address);
    assert.equal(addressOfEcPoint(point), address);
    assert.throws(() => addressOfEcPoint(point.subarray(0, 33)), SignerKeyMismatchError);
  });
});

describe("PKCS#11 key references", () => {
  test("formatPkcs11KeyRef writes an RFC 7512 URI that parsePkcs11KeyRef reads back", () => {
    const ref = formatPkcs11KeyRef("rwa prod;1", "wal_ab12");
    assert.equal(ref, "pkcs11:token=rwa%20prod%3B1;object=wal_ab12;type=private");
    assert.deepEqual(parsePkcs11KeyRef(ref), { token: "rwa prod;1", object: "wal_ab12" });
  });

  test("parsePkcs11KeyRef refuses a sealed local key and a URI without type=private", () => {
    assert.throws(() => parsePkcs11KeyRef("v1:abc:def:ghi:jkl"), Pkcs11KeyRefError);
    assert.throws(() => parsePkcs11KeyRef("pkcs11:token=a;object=b"), Pkcs11KeyRefError);
  });
});

describe("SIGNER and PKCS11_* settings", () => {
  const pkcs11 = {
    PKCS11_MODULE: "/usr/lib/softhsm/libsofthsm2.so",
    PKCS11_TOKEN_LABEL: "rwa",
    PKCS11_PIN: "s3cret-pin",
  };
  const refusal = (env: Record<string, string>, variable: string) =>
    assert.throws(
      () => parseEnv(env),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes(variable) &&
        !error.message.includes("s3cret-pin"),
    );

  test("parseEnv defaults to SIGNER=local with no token", () => {
    assert.deepEqual(parseEnv({}).signer, { newWallets: "local" });
  });

  test("parseEnv opens the token for SIGNER=pkcs11, and for SIGNER=local when PKCS11_MODULE is set", () => {
    const token = { module: pkcs11.PKCS11_MODULE, tokenLabel: "rwa", pin: "s3cret-pin" };
    assert.deepEqual(parseEnv({ SIGNER: "pkcs11", ...pkcs11 }).signer, {
      newWallets: "pkcs11",
      pkcs11: token,
    });
    assert.deepEqual(parseEnv(pkcs11).signer, { newWallets: "local", pkcs11: token });
  });

  test("parseEnv refuses SIGNER=pkcs11 without PKCS11_MODULE, naming it", () => {
    refusal({ SIGNER: "pkcs11" }, "Missing PKCS11_MODULE, PKCS11_TOKEN_LABEL, PKCS11_PIN");
  });

  test("parseEnv refuses a PKCS11_MODULE without its PIN, naming PKCS11_PIN", () => {
    refusal({ PKCS11_MODULE: pkcs11.PKCS11_MODULE, PKCS11_TOKEN_LABEL: "rwa" }, "PKCS11_PIN");
  });

  test("parseEnv refuses an unknown SIGNER and a token label over 32 bytes", () => {
    refusal({ SIGNER: "kms" }, "Invalid SIGNER");
    refusal({ ...pkcs11, PKCS11_TOKEN_LABEL: "x".repeat(33) }, "Invalid PKCS11_TOKEN_LABEL");
  });

  test("the PIN is a secret: errors do not quote it and logs redact a pin field", () => {
    assert.ok(isSecretFieldName("pin"));
    assert.ok(isSecretFieldName("PKCS11_PIN"));
  });
});

describe("HsmUnavailableError", () => {
  test("HsmUnavailableError is an UnavailableError and answers 503", () => {
    const error = new HsmUnavailableError();
    assert.ok(error instanceof UnavailableError);
    assert.equal(error.message, "HSM unavailable");
    assert.equal(statusOf(error), 503);
  });
});

describe("SignerRouter", () => {
  const keyStore = new AesGcmKeyStore(randomBytes(32).toString("hex"));
  const local = new LocalKeySigner(keyStore);

  test("SignerRouter refuses a SIGNER whose backend is not configured, naming SIGNER", () => {
    assert.throws(
      () => new SignerRouter([local], "pkcs11"),
      (error: unknown) => error instanceof ConfigError && /^Invalid SIGNER/.test(error.message),
    );
  });

  test("SignerRouter signs with the wallet's own backend and refuses one it does not have", async () => {
    const router = new SignerRouter([local], "local");
    const key = await router.createKey("wal_1");
    assert.equal(key.backend, "local");
    const wallet: CustodialWalletRef = {
      id: "wal_1",
      address: key.address,
      encryptedKey: key.keyRef,
      signerBackend: "local",
    };
    const digest = hexlify(randomBytes(32));
    const signature = await router.withDigestSigner(wallet, (sign) => sign(digest));
    assert.equal(recoverAddress(digest, signature), key.address);
    await assert.rejects(
      router.withDigestSigner({ ...wallet, signerBackend: "pkcs11" }, (sign) => sign(digest)),
      (error: unknown) =>
        error instanceof HsmUnavailableError && /pkcs11 signer backend/.test(error.message),
    );
    await assert.rejects(router.ensureAvailable("pkcs11"), HsmUnavailableError);
    await router.ensureAvailable("local");
  });
});

describe("signed transactions (our RLP layout against ethers' Transaction)", () => {
  const randomFields = (type: 0 | 2): UnsignedTx => ({
    chainId: [1236, 1, 31337][Math.floor(Math.random() * 3)]!,
    nonce: Math.random() < 0.2 ? 0 : Math.floor(Math.random() * 2 ** 40),
    to: getAddress(hexlify(randomBytes(20))),
    data: Math.random() < 0.2 ? "0x" : hexlify(randomBytes(Math.floor(Math.random() * 600))),
    value: Math.random() < 0.5 ? 0n : BigInt(hexlify(randomBytes(12))),
    gasLimit: BigInt(21_000 + Math.floor(Math.random() * 30_000_000)),
    type,
    maxFeePerGas: BigInt(hexlify(randomBytes(8))),
    maxPriorityFeePerGas: Math.random() < 0.2 ? 0n : BigInt(hexlify(randomBytes(4))),
  });

  test("the digest and the raw bytes equal ethers' for 200 random type-2 and legacy transactions", () => {
    for (let i = 0; i < 200; i++) {
      const fields = randomFields(i % 2 === 0 ? 2 : 0);
      const key = new SigningKey(hexlify(randomBytes(32)));
      const tx = Transaction.from(
        fields.type === 0
          ? {
              ...fields,
              maxFeePerGas: undefined,
              maxPriorityFeePerGas: undefined,
              gasPrice: fields.maxFeePerGas,
            }
          : fields,
      );
      assert.equal(unsignedDigest(fields), tx.unsignedHash, `digest, type ${fields.type}`);
      const signature = key.sign(tx.unsignedHash);
      tx.signature = signature;
      assert.equal(signedTransaction(fields, signature), tx.serialized, `raw, type ${fields.type}`);
    }
  });

  test("call data that is not whole hex bytes is refused, never signed short", () => {
    const fields = { ...randomFields(2), data: "0xabc" };
    assert.throws(() => unsignedDigest(fields), TypeError);
  });
});
