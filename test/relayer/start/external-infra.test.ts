import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ensureArtifacts } from "../../../deploy/artifacts.js";
import { deployAll } from "../../../deploy/deploy.js";
import { findFreePort, startAnvil, type AnvilHandle } from "../../../deploy/local-chain.js";
import { ANVIL_DEV_PRIVATE_KEY } from "../../../deploy/rpc.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "../../support/postgres.js";
import { exitWithin, killAll, spawnRelayer, type RelayerProcess } from "./relayer-process.js";

/**
 * With RPC_URL and DATABASE_URL the relayer starts nothing of its own: it reads the deployment
 * record written by `npm run deploy`, and refuses to start without one or on another chain.
 */
describe("start with RPC_URL and DATABASE_URL", { timeout: 120_000 }, () => {
  let root: string;
  let chain: AnvilHandle;
  let database: TestDatabase;
  let deploymentsFile: string;
  let env: Record<string, string>;
  const spawned: RelayerProcess[] = [];

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "rwa-external-"));
    await ensureArtifacts({ mode: "auto" });
    chain = await startAnvil({ port: await findFreePort(), blockTime: 0, reuseExisting: false });
    database = await createTestDatabase();
    deploymentsFile = path.join(root, "deployments", "1236.json");
    env = {
      RPC_URL: chain.rpcUrl,
      DATABASE_URL: database.url,
      ADMIN_TOKEN: `ent_admin_${randomBytes(32).toString("hex")}`,
      MASTER_KEY: randomBytes(32).toString("hex"),
      OPERATOR_PRIVATE_KEY: ANVIL_DEV_PRIVATE_KEY,
      DATA_DIR: path.join(root, "data"),
      DEPLOYMENTS_FILE: deploymentsFile,
      PORT: "0",
    };
  });

  after(async () => {
    for (const relayer of spawned) {
      if (relayer.child.exitCode === null && relayer.child.signalCode === null) killAll(relayer);
    }
    await chain?.stop();
    await database?.drop();
    await stopTestServer();
    rmSync(root, { recursive: true, force: true });
  });

  function run(extra: Record<string, string> = {}): RelayerProcess {
    const relayer = spawnRelayer({ ...env, ...extra });
    spawned.push(relayer);
    return relayer;
  }

  test("refuses to start without a deployment record and says to run npm run deploy", async () => {
    const relayer = run();
    const { code } = await exitWithin(relayer, 30_000);
    assert.equal(code, 1);
    assert.match(relayer.output(), /No usable deployment record at .*1236\.json/);
    assert.match(relayer.output(), /npm run deploy/);
  });

  test("starts against the given chain and database, starting no anvil or PostgreSQL", async () => {
    await deployAll({
      rpcUrl: chain.rpcUrl,
      deployerPrivateKey: ANVIL_DEV_PRIVATE_KEY,
      outFile: deploymentsFile,
      log: () => {},
    });
    const relayer = run();
    await relayer.waitFor(/Press Ctrl-C to stop/, 30_000);
    const output = relayer.output();
    assert.match(output, new RegExp(`RPC URL\\s+${chain.rpcUrl} \\(RPC_URL`));
    assert.match(output, /Database\s+DATABASE_URL/);
    assert.match(output, /Admin token\s+from ADMIN_TOKEN/);
    assert.match(output, /Processes\s+relayer \d+\s*$/m, "no embedded processes");
    assert.match(output, /CONFIRMATIONS is not set/, "warns that blocks count as final at once");
    assert.ok(!output.includes(env.ADMIN_TOKEN!), "a configured admin token is never printed");
    assert.equal(
      existsSync(path.join(env.DATA_DIR!, "secrets.json")),
      false,
      "no secrets generated",
    );
    const baseUrl = /Base URL\s+(\S+)/.exec(output)![1]!;
    const health = await fetch(`${baseUrl}/healthz`);
    assert.equal(health.status, 200);

    relayer.child.kill("SIGTERM");
    const { code } = await exitWithin(relayer, 15_000);
    assert.equal(code, 0);
    const stillThere = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    assert.equal(stillThere.status, 200, "the external chain is left running");
  });

  test("refuses a malformed or retired setting before anything starts, naming the variable", async () => {
    const malformed = run({ CONFIRMATIONS: "two" });
    assert.equal((await exitWithin(malformed, 30_000)).code, 1);
    assert.match(
      malformed.output(),
      /Start-up failed: Invalid CONFIRMATIONS: must be a whole number/,
    );
    const retired = run({ INDEXER_CONFIRMATIONS: "3" });
    assert.equal((await exitWithin(retired, 30_000)).code, 1);
    assert.match(
      retired.output(),
      /Start-up failed: Unsupported INDEXER_CONFIRMATIONS: replaced by CONFIRMATIONS/,
    );
  });

  test("refuses a chain whose id is not 1236", async () => {
    const other = await startAnvil({
      port: await findFreePort(),
      chainId: 31337,
      blockTime: 0,
      reuseExisting: false,
    });
    try {
      const relayer = run({ RPC_URL: other.rpcUrl });
      const { code } = await exitWithin(relayer, 30_000);
      assert.equal(code, 1);
      assert.match(
        relayer.output(),
        /Wrong chain: .* reports chain id 31337; this service runs on chain 1236/,
      );
    } finally {
      await other.stop();
    }
  });
});
