import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { Config } from "../../../relayer/src/context.js";
import type { RegisteredOrganization } from "../../../relayer/src/domain/org.js";
import { createApp } from "../../../relayer/src/http/app.js";
import { startIndexer } from "../../../relayer/src/indexer/start-indexer.js";
import {
  verifyMasterKey,
  type MasterKeyCheck,
} from "../../../relayer/src/infra/master-key-check.js";
import { countNotSealedUnder } from "../../../relayer/src/infra/master-key-rotation.js";
import { rotateMasterKeyCommand } from "../../../relayer/src/infra/rotate-master-key-command.js";
import { createLogger } from "../../../relayer/src/logger.js";
import { createAppContext, releaseAppServices } from "../../../relayer/src/create-app-context.js";
import { AesGcmKeyStore, masterKeyId } from "../../../relayer/src/wallets/key-store.js";
import { httpRequest, type ApiResponse } from "../../support/http-request.js";
import { startTestStack, type TestStack } from "../../support/stack.js";
import { assetBody } from "../writes/helpers.js";

/**
 * `npm run rotate-master-key` end to end: a real anvil and PostgreSQL, relayer "processes" (an
 * app context with its engine and indexer, on the shared database) started and
 * stopped as an operator restarts them, and the command itself: run in this process (its
 * database pool of its own) or, where it must be killed, spawned as a child process. Signing a
 * write is what proves a custodial key still opens after it was re-sealed.
 */

const NODE = path.resolve("node_modules/.bin/node");
const keyA = randomBytes(32).toString("hex");
const keyB = randomBytes(32).toString("hex");
const keyC = randomBytes(32).toString("hex");

/** One running relayer process of the test: its own keys, workers and HTTP server. */
interface Relayer {
  check: MasterKeyCheck;
  register(): Promise<RegisteredOrganization>;
  api(
    method: string,
    urlPath: string,
    apiKey: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse>;
  stop(): Promise<void>;
}

let stack: TestStack;

/** Starts a relayer with these keys after the start-up master-key check, as `npm start` does. */
async function startRelayer(masterKey: string, masterKeyPrevious?: string): Promise<Relayer> {
  const config: Config = { ...stack.ctx.config, masterKey, masterKeyPrevious };
  const keyStore = new AesGcmKeyStore(masterKey, masterKeyPrevious);
  const check = await verifyMasterKey(stack.database, keyStore);
  const ctx = createAppContext({
    config,
    logger: createLogger({ level: "warn", destination: { write: () => {} } }),
    database: stack.database,
    rpcUrl: stack.ctx.config.rpcUrl!,
    contracts: stack.ctx.contracts,
    isLocalChain: true,
    keyStore,
    engine: { sequencer: { checkIntervalMs: 200 } },
  });
  await ctx.engine.start();
  const indexer = await startIndexer(ctx, { lockPollMs: 200 });
  const server: Server = await new Promise((resolve) => {
    const s = createApp(ctx).listen(0, "127.0.0.1", () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    check,
    async register() {
      const res = await httpRequest(baseUrl, "POST", "/api/enterprise/register", {
        adminToken: stack.adminToken,
        body: { orgName: `Rotation ${randomBytes(3).toString("hex")}`, plan: "enterprise" },
      });
      assert.equal(res.status, 200, res.text);
      const org = res.body as RegisteredOrganization;
      const hook = await httpRequest(baseUrl, "POST", "/api/enterprise/webhooks", {
        apiKey: org.apiKey,
        body: { url: "https://hooks.example.com/rotation", events: ["asset.issued"] },
      });
      assert.equal(hook.status, 200, hook.text);
      return org;
    },
    api: (method, urlPath, apiKey, body, headers = {}) =>
      httpRequest(baseUrl, method, urlPath, {
        apiKey,
        headers,
        ...(body === undefined ? {} : { body }),
      }),
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await ctx.engine.stop();
      await indexer.stop();
      await releaseAppServices(ctx);
    },
  };
}

/** Issues an asset from `org`'s wallet and waits for it to be mined: the key signed. */
async function issueSigned(relayer: Relayer, org: RegisteredOrganization, name: string) {
  const res = await relayer.api(
    "POST",
    "/api/v1/write/issue-asset",
    org.apiKey,
    assetBody({ name }),
  );
  // 200 (not 202) is answered once the transaction is mined: the wallet's key signed it.
  assert.equal(res.status, 200, `issue-asset for ${org.orgId}: ${res.text}`);
  assert.match(res.body.txHash, /^0x[0-9a-f]{64}$/);
}

/** The command's environment: the test database, and `keys`. */
function commandEnv(keys: Record<string, string>): NodeJS.ProcessEnv {
  return { NODE_ENV: "test", DATABASE_URL: stack.testDatabase.url, ...keys };
}

/** Runs the command in this process; resolves with its exit code and output. */
async function runRotation(
  keys: Record<string, string>,
  argv: string[] = [],
): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await rotateMasterKeyCommand({
    argv,
    env: commandEnv(keys),
    print: (line) => lines.push(line),
  });
  return { code, output: lines.join("\n") };
}

/** Spawns `npm run rotate-master-key`'s script; `onLine` may kill it (SIGKILL). */
function spawnRotation(
  keys: Record<string, string>,
  argv: string[],
  onLine: (line: string, kill: () => void) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  const child = spawn(NODE, ["--import", "tsx", "relayer/src/rotate-master-key.ts", ...argv], {
    env: { PATH: process.env.PATH, ...commandEnv(keys) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    for (const line of text.split("\n")) if (line !== "") onLine(line, () => child.kill("SIGKILL"));
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, output })),
  );
}

/** Every local wallet key and webhook secret, opened with `store` (throws if one does not open). */
async function openAll(store: AesGcmKeyStore): Promise<Map<string, string>> {
  const opened = new Map<string, string>();
  const wallets = await stack.database.pool.query<{ id: string; encrypted_key: string }>(
    "SELECT id, encrypted_key FROM wallets WHERE signer_backend = 'local'",
  );
  for (const row of wallets.rows) opened.set(row.id, store.open(row.encrypted_key, row.id));
  const hooks = await stack.database.pool.query<{ id: string; encrypted_secret: string }>(
    "SELECT id, encrypted_secret FROM webhooks",
  );
  for (const row of hooks.rows) opened.set(row.id, store.open(row.encrypted_secret, row.id));
  return opened;
}

describe("master-key rotation (anvil, PostgreSQL, the command as a child process)", () => {
  const orgs: RegisteredOrganization[] = [];
  let relayer: Relayer | undefined;

  before(async () => {
    stack = await startTestStack({ logLevel: "warn", config: { masterKey: keyA } });
    relayer = await startRelayer(keyA);
    assert.equal(relayer.check.status, "recorded");
    for (let i = 0; i < 3; i += 1) orgs.push(await relayer.register());
  });
  after(async () => {
    await relayer?.stop();
    await stack?.stop();
  });

  test("the rotation runs while the relayer serves: writes sign during and after it, and a new org registered meanwhile is kept", async () => {
    const before = await openAll(new AesGcmKeyStore(keyA));
    const retry = () =>
      relayer!.api(
        "POST",
        "/api/v1/write/issue-asset",
        orgs[0]!.apiKey,
        assetBody({ name: "Once" }),
        {
          "Idempotency-Key": "before-rotation",
        },
      );
    const first = await retry();
    assert.equal(first.status, 200, first.text);
    await relayer!.stop();
    relayer = await startRelayer(keyB, keyA); // the restart with both keys begins the rotation
    assert.equal(relayer.check.status, "rotation-started");
    // Its idempotency record (hashed under the old key) is still recognised during the rotation.
    const replay = await retry();
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.body.txHash, first.body.txHash);

    const rotation = runRotation({ MASTER_KEY: keyB, MASTER_KEY_PREVIOUS: keyA }, [
      "--batch-size",
      "1",
    ]);
    const during = await Promise.all([
      issueSigned(relayer, orgs[0]!, "During rotation 0"),
      issueSigned(relayer, orgs[1]!, "During rotation 1"),
      relayer.register(),
    ]);
    const result = await rotation;
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, /Re-sealing 3 custodial keys and 3 webhook secrets from key id/);
    assert.match(result.output, /batch 1: 1 custodial keys re-sealed \(1\/3\)/);
    assert.match(
      result.output,
      /Rotation complete: 3 custodial keys and 3 webhook secrets re-sealed/,
    );
    assert.ok(!result.output.includes(keyA) && !result.output.includes(keyB), "no key printed");
    orgs.push(during[2]);

    const after = await openAll(new AesGcmKeyStore(keyB));
    for (const [id, plaintext] of before) assert.equal(after.get(id), plaintext, `${id} unchanged`);
    assert.equal(
      after.size,
      before.size + 2,
      "the org registered during the rotation is sealed too",
    );
    await assert.rejects(openAll(new AesGcmKeyStore(keyA)), /sealed under a different master key/);

    // Every organization still signs, through the process that ran through the rotation.
    await Promise.all(orgs.map((org, i) => issueSigned(relayer!, org, `After rotation ${i}`)));

    // Restarts: only the new key is accepted now.
    await relayer.stop();
    relayer = undefined;
    await assert.rejects(
      startRelayer(keyA),
      new RegExp(
        `MASTER_KEY \\(key id ${masterKeyId(keyA)}\\) was retired by a master-key rotation`,
      ),
    );
    relayer = await startRelayer(keyB);
    assert.equal(relayer.check.status, "matched");
    await issueSigned(relayer, orgs[2]!, "After restart");
    // The retired key is gone: a retry of the pre-rotation request is no longer recognised
    // (docs/custody.md, "Rotating the master key").
    assert.equal((await retry()).status, 409);
  });

  test("the command killed half-way (SIGKILL) and run again finishes: nothing lost, nothing sealed twice", async () => {
    const before = await openAll(new AesGcmKeyStore(keyB));
    await relayer!.stop();
    relayer = await startRelayer(keyC, keyB);
    assert.equal(relayer.check.status, "rotation-started");
    const env = { MASTER_KEY: keyC, MASTER_KEY_PREVIOUS: keyB };

    const killed = await spawnRotation(
      env,
      ["--batch-size", "1", "--pause-after-batches", "3"],
      (line, kill) => {
        if (line.includes("paused after batch 3")) kill();
      },
    );
    assert.equal(killed.signal, "SIGKILL", killed.output);
    const left = await countNotSealedUnder(stack.database.pool, masterKeyId(keyC));
    assert.deepEqual(
      left,
      { "custodial keys": 1, "webhook secrets": 4, "TOTP secrets": 0 },
      "3 of 4 keys were re-sealed",
    );

    // Half-way: the relayer still signs for a re-sealed wallet and for one not yet re-sealed,
    // and registers a new organization; a start with only the new key is refused.
    const { rows } = await stack.database.pool.query<{ org_id: string; encrypted_key: string }>(
      "SELECT org_id, encrypted_key FROM wallets",
    );
    const resealed = rows.find((r) => r.encrypted_key.startsWith(`v1:${masterKeyId(keyC)}:`))!;
    const pending = rows.find((r) => r.encrypted_key.startsWith(`v1:${masterKeyId(keyB)}:`))!;
    for (const row of [resealed, pending]) {
      await issueSigned(
        relayer,
        orgs.find((o) => o.orgId === row.org_id)!,
        `Half-way ${row.org_id}`,
      );
    }
    orgs.push(await relayer.register());
    await assert.rejects(
      verifyMasterKey(stack.database, new AesGcmKeyStore(keyC)),
      /half done: 1 custodial keys and 4 webhook secrets are still sealed under the previous key.*npm run rotate-master-key/,
    );

    const resumed = await runRotation(env, ["--batch-size", "2"]);
    assert.equal(resumed.code, 0, resumed.output);
    assert.match(resumed.output, /Re-sealing 1 custodial keys and 4 webhook secrets/);
    assert.match(
      resumed.output,
      /Rotation complete: 1 custodial keys and 4 webhook secrets re-sealed/,
    );

    const after = await openAll(new AesGcmKeyStore(keyC));
    for (const [id, plaintext] of before) assert.equal(after.get(id), plaintext, `${id} unchanged`);
    assert.equal(after.size, before.size + 2);
    await Promise.all(orgs.map((org, i) => issueSigned(relayer!, org, `After resume ${i}`)));
  });

  test("wrong keys give clear errors and change nothing", async () => {
    const stranger = randomBytes(32).toString("hex");
    const wrongPrevious = await runRotation({ MASTER_KEY: stranger, MASTER_KEY_PREVIOUS: keyA });
    assert.equal(wrongPrevious.code, 1);
    assert.match(
      wrongPrevious.output,
      /Master-key rotation failed: MASTER_KEY does not match the key this database was set up with/,
    );
    const noPrevious = await runRotation({ MASTER_KEY: keyC });
    assert.equal(noPrevious.code, 1);
    assert.match(noPrevious.output, /Missing MASTER_KEY_PREVIOUS: set MASTER_KEY to the new key/);
    const malformed = await runRotation({ MASTER_KEY: keyC, MASTER_KEY_PREVIOUS: "nope" });
    assert.equal(malformed.code, 1);
    assert.match(malformed.output, /Invalid MASTER_KEY_PREVIOUS: must be 64 hex characters/);
    assert.ok(!malformed.output.includes("nope"), "the value of a secret is never quoted");
    const done = await runRotation({ MASTER_KEY: keyC, MASTER_KEY_PREVIOUS: keyB });
    assert.equal(done.code, 0, done.output);
    assert.match(done.output, /Nothing to do: the database is sealed under key id/);
    assert.deepEqual(await countNotSealedUnder(stack.database.pool, masterKeyId(keyC)), {
      "custodial keys": 0,
      "webhook secrets": 0,
      "TOTP secrets": 0,
    });
  });
});
