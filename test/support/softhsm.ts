import { execFileSync } from "node:child_process";
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Pkcs11Settings } from "../../relayer/src/context.js";

/**
 * SoftHSM2 for the PKCS#11 tests (test/relayer/custody): a real software token, initialised by
 * each test file in a folder of its own. Debian's `softhsm2` package provides the module and
 * `softhsm2-util`; `scripts/test.sh` runs this file to install it (as root, with apt) before
 * `npm test` starts, and the tests fail with `missingSoftHsmMessage()` when it is not there.
 * OpenSC's `pkcs11-tool` looks at the token from another process.
 */

/** Debian's packages: the module and `softhsm2-util`; `pkcs11-tool`. */
export const SOFTHSM_PACKAGES = ["softhsm2", "opensc"] as const;

/** Where distributions put the module. */
const MODULE_PATHS = [
  "/usr/lib/softhsm/libsofthsm2.so",
  "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
  "/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so",
  "/usr/local/lib/softhsm/libsofthsm2.so",
  "/opt/homebrew/lib/softhsm/libsofthsm2.so",
];

function readable(file: string, mode = constants.R_OK): boolean {
  try {
    accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir !== "" && readable(path.join(dir, name), constants.X_OK)) return path.join(dir, name);
  }
  return undefined;
}

/** SoftHSM2's module, `softhsm2-util` and `pkcs11-tool`, or undefined when one is missing. */
export function findSoftHsm(
  env: NodeJS.ProcessEnv = process.env,
): { module: string; util: string } | undefined {
  const explicit = env.SOFTHSM2_MODULE;
  const module =
    explicit !== undefined && explicit !== ""
      ? readable(explicit)
        ? explicit
        : undefined
      : MODULE_PATHS.find((file) => readable(file));
  const util = onPath("softhsm2-util", env);
  const tool = onPath("pkcs11-tool", env);
  return module === undefined || util === undefined || tool === undefined
    ? undefined
    : { module, util };
}

/** What to do when `findSoftHsm` finds nothing, in one line. */
export function missingSoftHsmMessage(): string {
  const packages = SOFTHSM_PACKAGES.join(" ");
  return (
    `The PKCS#11 tests (test/relayer/custody) need SoftHSM2 and OpenSC's pkcs11-tool, and they ` +
    `were not found: install Debian's packages (apt-get install ${packages}; npm test does this ` +
    `itself as root), or set SOFTHSM2_MODULE to libsofthsm2.so with softhsm2-util and ` +
    `pkcs11-tool on PATH.`
  );
}

/** A SoftHSM2 token folder of one test file, and the settings that open its tokens. */
export interface SoftHsm {
  module: string;
  /** The folder of the tokens (SOFTHSM2_CONF's `directories.tokendir`). */
  tokenDir: string;
  /** Initialises a new token; returns the settings the relayer opens it with. */
  initToken(label: string, pin?: string): Pkcs11Settings;
  /** Removes the folder. */
  remove(): void;
}

/**
 * Points this process's SoftHSM2 at a new, empty token folder (SOFTHSM2_CONF, read by the module
 * when it is initialised: call this before opening any token).
 *
 * @throws Error with `missingSoftHsmMessage()` when SoftHSM2 is not installed (the test fails,
 *   it is not skipped)
 * @example
 * const hsm = startSoftHsm();
 * after(() => hsm.remove());
 * const settings = hsm.initToken("rwa-test");
 */
export function startSoftHsm(): SoftHsm {
  const found = findSoftHsm();
  if (found === undefined) throw new Error(missingSoftHsmMessage());
  const root = mkdtempSync(path.join(os.tmpdir(), "rwa-softhsm-"));
  const tokenDir = path.join(root, "tokens");
  mkdirSync(tokenDir);
  const conf = path.join(root, "softhsm2.conf");
  writeFileSync(
    conf,
    `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );
  process.env.SOFTHSM2_CONF = conf;
  return {
    module: found.module,
    tokenDir,
    initToken(label, pin = "1234") {
      execFileSync(
        found.util,
        ["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", "5678"],
        { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: "pipe" },
      );
      return { module: found.module, tokenLabel: label, pin };
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

// `node --import tsx test/support/softhsm.ts`: prints the module's path, or the message and exits 1.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const found = findSoftHsm();
  if (found === undefined) {
    process.stderr.write(`${missingSoftHsmMessage()}\n`);
    process.exit(1);
  }
  process.stdout.write(`${found.module}\n`);
}
