import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Pkcs11Settings } from "../../../relayer/src/context.js";
import { ConfigError, HsmUnavailableError } from "../../../relayer/src/errors.js";
import { Pkcs11Signer } from "../../../relayer/src/wallets/pkcs11-signer.js";
import { startSoftHsm, type SoftHsm } from "../../support/softhsm.js";

/**
 * A full token: SoftHSM2's token folder on a 1 MB tmpfs, filled up after the token is
 * initialised (SoftHSM2 reports a store it cannot write as CKR_FUNCTION_FAILED). Mounting needs
 * root with CAP_SYS_ADMIN, as `npm test` has on this project's machines; elsewhere the suite says
 * so and skips.
 */
describe("a full PKCS#11 token (SoftHSM2 on a full file system)", () => {
  let hsm: SoftHsm;
  let settings: Pkcs11Settings;
  let mounted = false;
  let cannotMount: string | undefined;

  before(() => {
    hsm = startSoftHsm();
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", hsm.tokenDir], {
        stdio: "pipe",
      });
      mounted = true;
    } catch (error) {
      cannotMount = `cannot mount a tmpfs (needs root with CAP_SYS_ADMIN): ${String(error)}`;
      return;
    }
    settings = hsm.initToken("rwa-full");
    try {
      writeFileSync(path.join(hsm.tokenDir, "filler"), Buffer.alloc(2 * 1024 * 1024));
    } catch {
      // ENOSPC: the file system is full, as intended.
    }
  });
  after(() => {
    if (mounted) execFileSync("umount", [hsm.tokenDir]);
    hsm?.remove();
  });

  test("open with SIGNER=pkcs11 refuses a token that cannot keep a new key, naming PKCS11_TOKEN_LABEL", (t) => {
    if (cannotMount !== undefined) return t.skip(cannotMount);
    assert.throws(
      () => Pkcs11Signer.open(settings, { makesKeys: true }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /^Invalid PKCS11_TOKEN_LABEL: token "rwa-full" cannot make and keep a secp256k1 key \(CKR_FUNCTION_FAILED\): it may be full/.test(
          error.message,
        ),
    );
  });

  test("without SIGNER=pkcs11 the token opens (its wallets can sign) and a new key answers HsmUnavailableError", async (t) => {
    if (cannotMount !== undefined) return t.skip(cannotMount);
    const signer = Pkcs11Signer.open(settings);
    try {
      await assert.rejects(
        signer.createKey("wal_full"),
        (error: unknown) =>
          error instanceof HsmUnavailableError &&
          /^HSM unavailable: PKCS#11 token "rwa-full" failed \(CKR_FUNCTION_FAILED\)/.test(
            error.message,
          ),
      );
    } finally {
      await signer.close();
    }
  });
});
