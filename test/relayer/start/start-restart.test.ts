import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { ensureArtifacts } from "../../../deploy/artifacts.js";
import { findFreePort } from "../../../deploy/local-chain.js";
import type { TestOrg } from "../../support/stack.js";
import {
  exitWithin,
  interruptGroup,
  killAll,
  portIsOpen,
  rpc,
  spawnRelayer,
  type RelayerProcess,
} from "./relayer-process.js";
import { assertNothingLeft, bannerPids } from "./assert-nothing-left.js";

/**
 * `npm start` end to end: cold start with nothing configured, an org registered through the API,
 * Ctrl-C, a warm restart on the same DATA_DIR that finds the same chain, database, org and key,
 * a wrong MASTER_KEY refused, and production refusing to start without real infrastructure.
 */

const COLD_START_MS = 60_000; // includes a contract build when artifacts are stale
const WARM_START_MS = 30_000;
const STOP_MS = 15_000;

/** What the test keeps of the registration answer (the fields `TestOrg` carries too). */
type Registered = Pick<TestOrg, "orgId" | "apiKey" | "walletAddress">;

describe("npm start", { timeout: 240_000 }, () => {
  let root: string;
  let dataDir: string;
  let anvilPort: number;
  let pgPort: number;
  let running: RelayerProcess | undefined;
  const spawned: RelayerProcess[] = [];
  /** Starts the relayer and waits for the whole banner (it arrives in several chunks). */
  async function start(
    extraEnv: Record<string, string>,
    timeoutMs: number,
    processGroup = false,
  ): Promise<RelayerProcess> {
    const relayer = spawnRelayer(extraEnv, { processGroup });
    spawned.push(relayer);
    await relayer.waitFor(/Press Ctrl-C to stop/, timeoutMs);
    return relayer;
  }
  let env: Record<string, string>;
  let baseUrl: string;
  let rpcUrl: string;
  let adminToken: string;
  let org: Registered;
  let blockBeforeStop: number;

  before(async () => {
    // Build the contracts first when they are stale, so the cold start measures the relayer.
    await ensureArtifacts({ mode: "auto" });
    root = mkdtempSync(path.join(os.tmpdir(), "rwa-start-"));
    // As root, PostgreSQL runs as the `postgres` user, which must be able to traverse to DATA_DIR.
    chmodSync(root, 0o711);
    dataDir = path.join(root, "data");
    anvilPort = await findFreePort();
    pgPort = await findFreePort();
    env = {
      DATA_DIR: dataDir,
      PORT: "0",
      ANVIL_PORT: String(anvilPort),
      EMBEDDED_PG_PORT: String(pgPort),
    };
  });

  after(async () => {
    for (const relayer of spawned) {
      if (relayer.child.exitCode !== null || relayer.child.signalCode !== null) continue;
      relayer.child.kill("SIGINT");
      await exitWithin(relayer, STOP_MS).catch(() => killAll(relayer));
    }
    rmSync(root, { recursive: true, force: true });
  });

  async function register(orgName: string, token: string): Promise<Response> {
    return fetch(`${baseUrl}/api/enterprise/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-admin-token": token },
      body: JSON.stringify({ orgName }),
    });
  }

  /** GET /api/enterprise/wallet with the key; undefined while that route does not exist yet. */
  async function wallet(apiKey: string): Promise<Record<string, unknown> | undefined> {
    const response = await fetch(`${baseUrl}/api/enterprise/wallet`, {
      headers: { "x-api-key": apiKey },
    });
    if (response.status === 404) return undefined;
    assert.equal(response.status, 200, await response.clone().text());
    return (await response.json()) as Record<string, unknown>;
  }

  /** The org and its key as stored, read straight from the embedded database. */
  async function storedOrg(orgId: string): Promise<{ orgs: number; keys: number }> {
    const secrets = JSON.parse(readFileSync(path.join(dataDir, "secrets.json"), "utf8")) as {
      postgresPassword: string;
    };
    const client = new pg.Client({
      connectionString: `postgres://postgres:${secrets.postgresPassword}@127.0.0.1:${pgPort}/rwa_relayer`,
    });
    await client.connect();
    try {
      const orgs = await client.query("SELECT 1 FROM orgs WHERE id = $1", [orgId]);
      const keys = await client.query(
        "SELECT 1 FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL",
        [orgId],
      );
      return { orgs: orgs.rowCount ?? 0, keys: keys.rowCount ?? 0 };
    } finally {
      await client.end();
    }
  }

  async function stopAndCheckNoOrphans(
    relayer: RelayerProcess,
    how: "process" | "group" = "process",
  ): Promise<number> {
    const pids = bannerPids(relayer.output());
    if (how === "group") interruptGroup(relayer);
    else relayer.child.kill("SIGINT");
    const { code, ms } = await exitWithin(relayer, STOP_MS);
    assert.equal(code, 0, relayer.output());
    assert.match(relayer.output(), /Stopped in \d+ ms/);
    await assertNothingLeft(pids, { anvil: anvilPort, postgres: pgPort }, relayer.output());
    return ms;
  }

  test("a cold start with nothing configured starts anvil, PostgreSQL and the API and prints the admin token", async (t) => {
    const started = performance.now();
    running = await start(env, COLD_START_MS);
    baseUrl = /Base URL\s+(http:\/\/\S+)/.exec(running.output())![1]!;
    t.diagnostic(`cold start: ${Math.round(performance.now() - started)} ms`);
    const output = running.output();
    for (const line of output.match(/^.*(: done in \d+ ms|ready in .*)$/gm) ?? [])
      t.diagnostic(line.trim());
    rpcUrl = /RPC URL\s+(http:\/\/\S+)/.exec(output)![1]!;
    assert.equal(rpcUrl, `http://127.0.0.1:${anvilPort}`);
    assert.match(output, new RegExp(`Console\\s+${baseUrl}/console`));
    adminToken = /Admin token\s+(ent_admin_[0-9a-f]{64})/.exec(output)![1]!;
    assert.ok(existsSync(path.join(dataDir, "deployments", "1236.json")));
    const secretsFile = path.join(dataDir, "secrets.json");
    assert.equal(statSync(secretsFile).mode & 0o777, 0o600);
    const secrets = JSON.parse(readFileSync(secretsFile, "utf8")) as Record<string, string>;
    assert.equal(secrets.adminToken, adminToken);
    assert.ok(!output.includes(secrets.masterKey!), "the master key is never printed");
    assert.ok(
      !output.includes(secrets.postgresPassword!),
      "the database password is never printed",
    );
  });

  test("the API registers an org with the admin token and the returned key works", async (t) => {
    const response = await register("Start Test Org", adminToken);
    assert.equal(response.status, 200, await response.clone().text());
    org = (await response.json()) as Registered;
    assert.match(org.apiKey, /^rwa_live_[0-9a-f]{64}$/);
    const balance = await wallet(org.apiKey);
    if (balance === undefined)
      t.diagnostic("GET /api/enterprise/wallet not mounted yet: checked the database instead");
    else
      assert.equal(
        JSON.stringify(balance).toLowerCase().includes(org.walletAddress.toLowerCase()),
        true,
      );
    assert.deepEqual(await storedOrg(org.orgId), { orgs: 1, keys: 1 });
    assert.ok(!running!.output().includes(org.apiKey), "API keys are never logged");
    blockBeforeStop = Number(BigInt(await rpc<string>(rpcUrl, "eth_blockNumber")));
    assert.ok(blockBeforeStop > 0);
  });

  test("SIGINT stops the relayer, anvil and PostgreSQL cleanly", async (t) => {
    const ms = await stopAndCheckNoOrphans(running!);
    t.diagnostic(`clean stop: ${ms} ms`);
  });

  test("a restart finds the same chain, database, org and key, and does not print the token again", async (t) => {
    const started = performance.now();
    running = await start(env, WARM_START_MS, true);
    baseUrl = /Base URL\s+(http:\/\/\S+)/.exec(running.output())![1]!;
    t.diagnostic(`warm restart: ${Math.round(performance.now() - started)} ms`);
    const output = running.output();
    for (const line of output.match(/^.*(: done in \d+ ms|ready in .*)$/gm) ?? [])
      t.diagnostic(line.trim());
    assert.ok(!output.includes(adminToken), "the admin token is printed only when generated");
    assert.match(output, /Admin token\s+kept in .*secrets\.json/);
    assert.match(output, /contracts up-to-date/);

    const block = Number(BigInt(await rpc<string>(rpcUrl, "eth_blockNumber")));
    assert.ok(block >= blockBeforeStop, `block height reset: ${block} < ${blockBeforeStop}`);
    const code = await rpc<string>(rpcUrl, "eth_getCode", [org.walletAddress, "latest"]);
    assert.equal(code, "0x"); // an EOA; the call proves the node answers for the old state

    assert.deepEqual(await storedOrg(org.orgId), { orgs: 1, keys: 1 });
    const balance = await wallet(org.apiKey);
    if (balance !== undefined) {
      assert.equal(
        JSON.stringify(balance).toLowerCase().includes(org.walletAddress.toLowerCase()),
        true,
      );
    }
    const again = await register("Second Org", adminToken);
    assert.equal(again.status, 200, "the saved admin token still works");
    // This time stop it as a terminal's Ctrl-C does: anvil and PostgreSQL get SIGINT too.
    const ms = await stopAndCheckNoOrphans(running, "group");
    t.diagnostic(`Ctrl-C (process group) stop: ${ms} ms`);
  });

  test("a different MASTER_KEY on a later start exits non-zero with a clear message", async () => {
    const wrongKey = randomBytes(32).toString("hex");
    running = spawnRelayer({ ...env, MASTER_KEY: wrongKey });
    spawned.push(running);
    const { code } = await exitWithin(running, WARM_START_MS);
    const output = running.output();
    assert.notEqual(code, 0);
    assert.match(output, /MASTER_KEY does not match the key this database was set up with/);
    assert.ok(!output.includes(wrongKey), "the key itself is not printed");
    assert.equal(await portIsOpen(anvilPort), false, "anvil was stopped after the failed start");
    assert.equal(await portIsOpen(pgPort), false, "PostgreSQL was stopped after the failed start");
  });

  test("production without RPC_URL, DATABASE_URL, ADMIN_TOKEN or MASTER_KEY refuses to start", async () => {
    const prodDir = path.join(root, "prod");
    const relayer = spawnRelayer({ NODE_ENV: "production", DATA_DIR: prodDir, PORT: "0" });
    spawned.push(relayer);
    const { code } = await exitWithin(relayer, 15_000);
    assert.equal(code, 1);
    assert.match(
      relayer.output(),
      /Missing RPC_URL, DATABASE_URL, ADMIN_TOKEN, MASTER_KEY, OPERATOR_PRIVATE_KEY/,
    );
    assert.equal(
      existsSync(path.join(prodDir, "secrets.json")),
      false,
      "no secrets generated in production",
    );
  });
});
