import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { deployAll } from "../../../deploy/deploy.js";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import type { Pkcs11Settings } from "../../../relayer/src/context.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "../../support/postgres.js";
import { startSoftHsm, type SoftHsm } from "../../support/softhsm.js";
import {
  exitWithin,
  killAll,
  spawnRelayer,
  type RelayerProcess,
} from "../start/relayer-process.js";

/**
 * `npm start` (relayer/src/main.ts as a child process) with SIGNER=pkcs11 against a SoftHSM2
 * token: it starts and registers organizations whose keys are made in the token, and it refuses
 * to start, naming the setting, for a wrong PIN, a module it cannot load, and wallets whose keys
 * are in a token it has not been given.
 */
describe("npm start with a PKCS#11 token", { timeout: 180_000 }, () => {
  let root: string;
  let hsm: SoftHsm;
  let token: Pkcs11Settings;
  let chain: AnvilHandle;
  let database: TestDatabase;
  let env: Record<string, string>;
  const spawned: RelayerProcess[] = [];
  const WRONG_PIN = "wrong-pin-7731";

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "rwa-start-pkcs11-"));
    hsm = startSoftHsm();
    token = hsm.initToken("rwa-start", "246810");
    hsm.initToken("rwa-other", "246810");
    chain = await startAnvil({ port: await findFreePort(), blockTime: 0, reuseExisting: false });
    database = await createTestDatabase();
    const deploymentsFile = path.join(root, "deployments", "1236.json");
    await deployAll({
      rpcUrl: chain.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile: deploymentsFile,
      log: () => {},
    });
    env = {
      RPC_URL: chain.rpcUrl,
      DATABASE_URL: database.url,
      ADMIN_TOKEN: `ent_admin_${randomBytes(32).toString("hex")}`,
      MASTER_KEY: randomBytes(32).toString("hex"),
      OPERATOR_PRIVATE_KEY: ANVIL_DEV_PRIVATE_KEY,
      DATA_DIR: path.join(root, "data"),
      DEPLOYMENTS_FILE: deploymentsFile,
      PORT: "0",
      CONSOLE_BUILD: "off",
      SOFTHSM2_CONF: process.env.SOFTHSM2_CONF!,
    };
  });

  after(async () => {
    for (const relayer of spawned) {
      if (relayer.child.exitCode === null && relayer.child.signalCode === null) killAll(relayer);
    }
    await chain?.stop();
    await database?.drop();
    await stopTestServer();
    hsm?.remove();
    rmSync(root, { recursive: true, force: true });
  });

  function run(extra: Record<string, string>): RelayerProcess {
    const relayer = spawnRelayer({ ...env, ...extra });
    spawned.push(relayer);
    return relayer;
  }

  const withToken = (overrides: Partial<Pkcs11Settings> = {}) => {
    const settings = { ...token, ...overrides };
    return {
      SIGNER: "pkcs11",
      PKCS11_MODULE: settings.module,
      PKCS11_TOKEN_LABEL: settings.tokenLabel,
      PKCS11_PIN: settings.pin,
    };
  };

  async function refusal(extra: Record<string, string>): Promise<string> {
    const relayer = run(extra);
    const { code } = await exitWithin(relayer, 60_000);
    assert.equal(code, 1, relayer.output());
    return relayer.output();
  }

  test("npm start refuses a wrong PKCS11_PIN, naming it and never printing it", async () => {
    const output = await refusal(withToken({ pin: WRONG_PIN }));
    assert.match(output, /Invalid PKCS11_PIN: the token rejected the PIN \(CKR_PIN_INCORRECT/);
    assert.ok(!output.includes(WRONG_PIN), "the PIN is printed");
  });

  test("npm start refuses a PKCS11_MODULE it cannot load, naming it", async () => {
    const output = await refusal(withToken({ module: path.join(root, "missing-pkcs11.so") }));
    assert.match(
      output,
      /Invalid PKCS11_MODULE: cannot load the PKCS#11 module .*missing-pkcs11\.so/,
    );
  });

  test("npm start refuses a token label no token has, naming PKCS11_TOKEN_LABEL", async () => {
    const output = await refusal(withToken({ tokenLabel: "not-plugged-in" }));
    assert.match(output, /Invalid PKCS11_TOKEN_LABEL: no token labelled "not-plugged-in"/);
  });

  test("npm start with SIGNER=pkcs11 registers organizations whose keys are in the token; without the token it then refuses to start", async () => {
    const relayer = run(withToken());
    await relayer.waitFor(/Press Ctrl-C to stop/, 60_000);
    assert.match(relayer.output(), /new wallets' keys: pkcs11; existing: none/);
    const baseUrl = /Base URL\s+(\S+)/.exec(relayer.output())![1]!;
    const registered = await fetch(`${baseUrl}/api/enterprise/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-admin-token": env.ADMIN_TOKEN! },
      body: JSON.stringify({ orgName: "HSM Org", plan: "enterprise" }),
    });
    assert.equal(registered.status, 200, await registered.clone().text());
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client
      .query<{ signer_backend: string }>("SELECT signer_backend FROM wallets")
      .finally(() => client.end());
    assert.deepEqual(
      rows.map((r) => r.signer_backend),
      ["pkcs11"],
    );
    relayer.child.kill("SIGTERM");
    assert.equal((await exitWithin(relayer, 20_000)).code, 0);

    const withoutToken = await refusal({});
    assert.match(
      withoutToken,
      /Missing PKCS11_MODULE: 1 organization wallet keeps its key in PKCS#11 token "rwa-start"/,
    );
    const otherToken = await refusal(withToken({ tokenLabel: "rwa-other" }));
    assert.match(
      otherToken,
      /Invalid PKCS11_TOKEN_LABEL: 1 organization wallet keeps its key in PKCS#11 token "rwa-start", but PKCS11_TOKEN_LABEL is "rwa-other"/,
    );

    // SIGNER=local with the token configured: the token's wallet still signs, new ones are local.
    const local = run({ ...withToken(), SIGNER: "local" });
    await local.waitFor(/Press Ctrl-C to stop/, 60_000);
    assert.match(local.output(), /new wallets' keys: local; existing: 1 pkcs11 \("rwa-start"\)/);
    local.child.kill("SIGTERM");
    assert.equal((await exitWithin(local, 20_000)).code, 0);
  });
});
