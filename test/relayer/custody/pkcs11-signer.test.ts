import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { getAddress, hexlify, recoverAddress, Transaction, Wallet } from "ethers";
import pkcs11js from "pkcs11js";
import { withWalletSigner } from "../../../relayer/src/wallets/signer-backend.js";
import { ConfigError, HsmUnavailableError } from "../../../relayer/src/errors.js";
import { parsePkcs11KeyRef } from "../../../relayer/src/wallets/pkcs11-key-ref.js";
import { Pkcs11Signer } from "../../../relayer/src/wallets/pkcs11-signer.js";
import { SignerKeyMismatchError } from "../../../relayer/src/wallets/secp256k1.js";
import type { Pkcs11Settings } from "../../../relayer/src/context.js";
import { startSoftHsm, type SoftHsm } from "../../support/softhsm.js";

const HALF_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n >> 1n;

/** Asserts `run` throws a ConfigError naming `variable` and not quoting `secret`. */
function assertRefused(run: () => unknown, variable: string, message: RegExp, secret?: string) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    assert.match(error.message, new RegExp(`^Invalid ${variable}: `));
    assert.match(error.message, message);
    if (secret !== undefined) assert.ok(!error.message.includes(secret), "message quotes the PIN");
    return true;
  });
}

describe("PKCS#11 signer backend (SoftHSM2)", () => {
  let hsm: SoftHsm;
  let settings: Pkcs11Settings;

  before(() => {
    hsm = startSoftHsm();
    settings = hsm.initToken("rwa-signer-test", "4321");
  });
  after(() => hsm?.remove());

  // Each refused open finalizes the module: these run before the signer below opens the token.
  describe("refuses to open", () => {
    test("open refuses a module that cannot be loaded, naming PKCS11_MODULE", () => {
      assertRefused(
        () => Pkcs11Signer.open({ ...settings, module: "/nonexistent/libpkcs11.so" }),
        "PKCS11_MODULE",
        /cannot load the PKCS#11 module \/nonexistent\/libpkcs11\.so/,
      );
    });

    test("open refuses a label no token has, naming PKCS11_TOKEN_LABEL and the tokens present", () => {
      assertRefused(
        () => Pkcs11Signer.open({ ...settings, tokenLabel: "no-such-token" }),
        "PKCS11_TOKEN_LABEL",
        /no token labelled "no-such-token" .*tokens present: "rwa-signer-test"/,
      );
    });

    test("open refuses a wrong PIN, naming PKCS11_PIN without quoting it", () => {
      assertRefused(
        () => Pkcs11Signer.open({ ...settings, pin: "999999" }, { makesKeys: true }),
        "PKCS11_PIN",
        /the token rejected the PIN \(CKR_PIN_INCORRECT/,
        "999999",
      );
    });
  });

  describe("with the token open", () => {
    let signer: Pkcs11Signer;
    let walletId: string;
    let key: { address: string; keyRef: string };

    before(async () => {
      signer = Pkcs11Signer.open(settings, { makesKeys: true });
      walletId = `wal_${randomBytes(8).toString("hex")}`;
      key = await signer.createKey(walletId);
    });
    after(() => signer?.close());

    const wallet = () => ({
      id: walletId,
      address: key.address,
      encryptedKey: key.keyRef,
      signerBackend: "pkcs11",
    });

    test("createKey makes the key in the token and stores only a PKCS#11 URI naming it", () => {
      assert.equal(getAddress(key.address), key.address);
      assert.deepEqual(parsePkcs11KeyRef(key.keyRef), {
        token: "rwa-signer-test",
        object: walletId,
      });
      assert.equal(key.keyRef, `pkcs11:token=rwa-signer-test;object=${walletId};type=private`);
    });

    test("open with makesKeys leaves no start-up probe key on the token", async () => {
      const probes = await signer.token.withSession((session, lib) => {
        lib.C_FindObjectsInit(session, [{ type: pkcs11js.CKA_LABEL, value: "rwa-start-probe" }]);
        const found = lib.C_FindObjects(session, 4);
        lib.C_FindObjectsFinal(session);
        return found.length;
      });
      assert.equal(probes, 0);
    });

    test("the private key is sensitive, never extractable, and its value cannot be read out", async () => {
      await signer.token.withSession((session, lib) => {
        lib.C_FindObjectsInit(session, [
          { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
          { type: pkcs11js.CKA_ID, value: Buffer.from(walletId) },
        ]);
        const handles = lib.C_FindObjects(session, 4);
        lib.C_FindObjectsFinal(session);
        assert.equal(handles.length, 1);
        const [sensitive, extractable, alwaysSensitive, neverExtractable, token] =
          lib.C_GetAttributeValue(session, handles[0]!, [
            { type: pkcs11js.CKA_SENSITIVE },
            { type: pkcs11js.CKA_EXTRACTABLE },
            { type: pkcs11js.CKA_ALWAYS_SENSITIVE },
            { type: pkcs11js.CKA_NEVER_EXTRACTABLE },
            { type: pkcs11js.CKA_TOKEN },
          ]);
        const flag = (attribute: { value?: unknown } | undefined) =>
          (attribute?.value as Buffer | undefined)?.[0];
        assert.equal(flag(sensitive), 1, "CKA_SENSITIVE");
        assert.equal(flag(extractable), 0, "CKA_EXTRACTABLE");
        assert.equal(flag(alwaysSensitive), 1, "CKA_ALWAYS_SENSITIVE");
        assert.equal(flag(neverExtractable), 1, "CKA_NEVER_EXTRACTABLE");
        assert.equal(flag(token), 1, "CKA_TOKEN");
        let value: unknown;
        try {
          value = lib.C_GetAttributeValue(session, handles[0]!, [{ type: pkcs11js.CKA_VALUE }]);
        } catch (error) {
          assert.equal((error as Error).message.split(/\s/)[0], "CKR_ATTRIBUTE_SENSITIVE");
          return;
        }
        assert.fail(`C_GetAttributeValue(CKA_VALUE) gave the private key: ${String(value)}`);
      });
    });

    test("pkcs11-tool, another process logged in to the token, lists the key as sensitive, never extractable, for signing only", () => {
      const listing = execFileSync(
        "pkcs11-tool",
        [
          ...["--module", settings.module, "--token-label", settings.tokenLabel],
          ...["--login", "--pin", settings.pin, "--list-objects", "--type", "privkey"],
        ],
        { env: process.env, stdio: "pipe", timeout: 20_000 },
      ).toString();
      const block = listing.split(/\n(?=\S)/).find((b) => b.includes(`label:      ${walletId}`));
      assert.ok(block !== undefined, `pkcs11-tool lists the key:\n${listing}`);
      assert.match(block, /Access:\s+sensitive, always sensitive, never extractable/);
      assert.match(block, /Usage:\s+sign\n/);
    });

    test("signatures recover to the wallet's address with s in the lower half", async () => {
      await withWalletSigner(signer, wallet(), async (sign) => {
        for (let i = 0; i < 40; i++) {
          const tx = Transaction.from({
            chainId: 1236,
            nonce: i,
            to: Wallet.createRandom().address,
            gasLimit: 21_000n,
            maxFeePerGas: 1_000_000_000n,
            maxPriorityFeePerGas: 1n,
            type: 2,
          });
          const signed = await sign({
            chainId: 1236,
            nonce: i,
            to: tx.to!,
            data: "0x",
            value: 0n,
            gasLimit: 21_000n,
            type: 2,
            maxFeePerGas: 1_000_000_000n,
            maxPriorityFeePerGas: 1n,
          });
          const parsed = Transaction.from(signed.raw);
          assert.equal(parsed.from, key.address);
          assert.ok(BigInt(parsed.signature!.s) <= HALF_N, "s is low");
        }
      });
    });

    test("a signature that recovers to another address is refused with SignerKeyMismatchError", async () => {
      const other = Wallet.createRandom().address;
      await signer.withDigestSigner({ ...wallet(), address: other }, async (sign) => {
        await assert.rejects(sign(hexlify(randomBytes(32))), SignerKeyMismatchError);
      });
      // The same key, asked for its own address, still signs.
      await signer.withDigestSigner(wallet(), async (sign) => {
        const digest = hexlify(randomBytes(32));
        assert.equal(recoverAddress(digest, await sign(digest)), key.address);
      });
    });

    test("a wallet whose key reference names another token is refused with HsmUnavailableError", async () => {
      const elsewhere = { ...wallet(), encryptedKey: key.keyRef.replace("rwa-signer-test", "x") };
      await assert.rejects(
        signer.withDigestSigner(elsewhere, () => Promise.resolve()),
        (error: unknown) =>
          error instanceof HsmUnavailableError && /on PKCS#11 token "x"/.test(error.message),
      );
    });

    test("discardKey destroys both halves of a key pair", async () => {
      const id = `wal_${randomBytes(8).toString("hex")}`;
      const made = await signer.createKey(id);
      await signer.discardKey(id);
      await assert.rejects(
        signer.withDigestSigner(
          { id, address: made.address, encryptedKey: made.keyRef, signerBackend: "pkcs11" },
          (sign) => sign(hexlify(randomBytes(32))),
        ),
        (error: unknown) =>
          error instanceof HsmUnavailableError && /no key for wallet/.test(error.message),
      );
    });
  });
});
