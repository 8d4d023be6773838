import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { parseEnv, resolveConfig } from "../../../relayer/src/config.js";
import { createDatabase, type Database } from "../../../relayer/src/db/client.js";
import { runMigrations } from "../../../relayer/src/db/migrate.js";
import { ConfigError } from "../../../relayer/src/errors.js";
import {
  completeRotation,
  readMasterKeyState,
  verifyMasterKey,
} from "../../../relayer/src/infra/master-key-check.js";
import {
  countNotSealedUnder,
  MasterKeyRotationError,
  resealAll,
} from "../../../relayer/src/infra/master-key-rotation.js";
import { ensureDevSecrets } from "../../../relayer/src/infra/dev-secrets.js";
import { rotateMasterKeyCommand } from "../../../relayer/src/infra/rotate-master-key-command.js";
import { AesGcmKeyStore, masterKeyId } from "../../../relayer/src/wallets/key-store.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "../../support/postgres.js";

/**
 * The start-up master-key check through a rotation, and the batch re-sealing itself, against a
 * real PostgreSQL (no chain: the end-to-end run with signatures is master-key-rotation.test.ts).
 */

const keyA = randomBytes(32).toString("hex");
const keyB = randomBytes(32).toString("hex");
const keyC = randomBytes(32).toString("hex");
const idA = masterKeyId(keyA);
const idB = masterKeyId(keyB);

let testDatabase: TestDatabase;
let database: Database;

before(async () => {
  testDatabase = await createTestDatabase();
  database = createDatabase(testDatabase.url);
  await runMigrations(database);
});
after(async () => {
  await database?.close();
  await testDatabase?.drop();
  await stopTestServer();
});

/** Empties the sealed tables and the key settings. */
async function reset(): Promise<void> {
  await database.pool.query(
    "TRUNCATE webhooks, wallets, orgs CASCADE; DELETE FROM settings WHERE key LIKE 'master_key%'",
  );
}

/** `count` orgs, each with a local wallet and a webhook sealed by `store`; returns the plaintexts. */
async function seed(store: AesGcmKeyStore, count: number): Promise<Map<string, string>> {
  const plaintexts = new Map<string, string>();
  for (let i = 0; i < count; i += 1) {
    const suffix = randomBytes(6).toString("hex");
    const [orgId, walletId, webhookId] = [`org_${suffix}`, `wal_${suffix}`, `wh_${suffix}`];
    const key = `0x${randomBytes(32).toString("hex")}`;
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    await database.pool.query("INSERT INTO orgs (id, name, scopes) VALUES ($1, $1, '{read}')", [
      orgId,
    ]);
    await database.pool.query(
      "INSERT INTO wallets (id, org_id, address, encrypted_key) VALUES ($1, $2, $3, $4)",
      [walletId, orgId, `0x${randomBytes(20).toString("hex")}`, store.seal(key, walletId)],
    );
    await database.pool.query(
      "INSERT INTO webhooks (id, org_id, url, events, encrypted_secret) VALUES ($1, $2, 'https://example.com/h', '{asset.issued}', $3)",
      [webhookId, orgId, store.seal(secret, webhookId)],
    );
    plaintexts.set(walletId, key).set(webhookId, secret);
  }
  return plaintexts;
}

/** Every sealed row, opened with `store` (throws if one does not open). */
async function openAll(store: AesGcmKeyStore): Promise<Map<string, string>> {
  const opened = new Map<string, string>();
  const wallets = await database.pool.query<{ id: string; encrypted_key: string }>(
    "SELECT id, encrypted_key FROM wallets WHERE signer_backend = 'local'",
  );
  for (const row of wallets.rows) opened.set(row.id, store.open(row.encrypted_key, row.id));
  const hooks = await database.pool.query<{ id: string; encrypted_secret: string }>(
    "SELECT id, encrypted_secret FROM webhooks",
  );
  for (const row of hooks.rows) opened.set(row.id, store.open(row.encrypted_secret, row.id));
  return opened;
}

const refusal = (pattern: RegExp) => (error: unknown) =>
  error instanceof ConfigError && pattern.test(error.message);

describe("master-key check through a rotation", () => {
  beforeEach(reset);

  test("verifyMasterKey records the first key, then matches it", async () => {
    assert.deepEqual(await verifyMasterKey(database, new AesGcmKeyStore(keyA)), {
      status: "recorded",
    });
    assert.deepEqual(await verifyMasterKey(database, new AesGcmKeyStore(keyA)), {
      status: "matched",
    });
  });

  test("verifyMasterKey refuses an unknown key and says how to rotate", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    await assert.rejects(
      verifyMasterKey(database, new AesGcmKeyStore(keyB)),
      refusal(/does not match the key this database was set up with .*MASTER_KEY_PREVIOUS/),
    );
  });

  test("a start with the new key and the previous one begins the rotation and refuses the old key alone", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    await seed(new AesGcmKeyStore(keyA), 2);
    const check = await verifyMasterKey(database, new AesGcmKeyStore(keyB, keyA));
    assert.deepEqual(check, {
      status: "rotation-started",
      previous: idA,
      pending: { "custodial keys": 2, "webhook secrets": 2, "TOTP secrets": 0 },
    });
    assert.deepEqual(await readMasterKeyState(database), {
      current: idB,
      previous: idA,
      retired: [],
    });
    assert.equal(
      (await verifyMasterKey(database, new AesGcmKeyStore(keyB, keyA))).status,
      "rotating",
    );
    await assert.rejects(
      verifyMasterKey(database, new AesGcmKeyStore(keyA)),
      refusal(
        new RegExp(
          `rotation from key id ${idA} to ${idB} is running, and MASTER_KEY is the old key`,
        ),
      ),
    );
    await assert.rejects(
      verifyMasterKey(database, new AesGcmKeyStore(keyA, keyB)),
      refusal(/MASTER_KEY and MASTER_KEY_PREVIOUS are swapped/),
    );
    await assert.rejects(
      verifyMasterKey(database, new AesGcmKeyStore(keyB, keyC)),
      refusal(/MASTER_KEY_PREVIOUS \(key id \w+\) is not the key the running master-key rotation/),
    );
    await assert.rejects(
      verifyMasterKey(database, new AesGcmKeyStore(keyC, keyB)),
      refusal(/is not finished; finish it \(`npm run rotate-master-key`/),
    );
  });

  test("a half-done rotation refuses a start with only the new key, naming what is left and what to run", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    await seed(new AesGcmKeyStore(keyA), 3);
    await verifyMasterKey(database, new AesGcmKeyStore(keyB, keyA));
    await assert.rejects(
      verifyMasterKey(database, new AesGcmKeyStore(keyB)),
      refusal(
        /half done: 3 custodial keys and 3 webhook secrets are still sealed under the previous key\. Start with MASTER_KEY_PREVIOUS .* run `npm run rotate-master-key`/,
      ),
    );
  });

  test("after the rotation only the new key is accepted; the old one is refused by name", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    const plaintexts = await seed(new AesGcmKeyStore(keyA), 3);
    const store = new AesGcmKeyStore(keyB, keyA);
    await verifyMasterKey(database, store);
    const result = await resealAll(database, store, { batchSize: 2 });
    assert.deepEqual(result.resealed, {
      "custodial keys": 3,
      "webhook secrets": 3,
      "TOTP secrets": 0,
    });
    assert.equal(result.batches, 4); // 2 + 1 wallets, 2 + 1 webhooks
    const done = await completeRotation(database, store);
    assert.equal(done.completed, true);
    assert.equal(store.previousKeyId, undefined, "completion drops the previous key");

    assert.deepEqual(await openAll(new AesGcmKeyStore(keyB)), plaintexts);
    await assert.rejects(openAll(new AesGcmKeyStore(keyA)), /sealed under a different master key/);
    assert.equal((await verifyMasterKey(database, new AesGcmKeyStore(keyB))).status, "matched");
    await assert.rejects(
      verifyMasterKey(database, new AesGcmKeyStore(keyA)),
      refusal(
        new RegExp(
          `MASTER_KEY \\(key id ${idA}\\) was retired by a master-key rotation completed at`,
        ),
      ),
    );
    const lingering = new AesGcmKeyStore(keyB, keyA);
    assert.deepEqual(await verifyMasterKey(database, lingering), {
      status: "previous-ignored",
      previous: idA,
    });
    assert.equal(lingering.previousKeyId, undefined, "a retired MASTER_KEY_PREVIOUS is not used");
  });

  test("a rotation whose re-sealing finished but was not marked complete completes at the next start", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    await seed(new AesGcmKeyStore(keyA), 1);
    const store = new AesGcmKeyStore(keyB, keyA);
    await verifyMasterKey(database, store);
    await resealAll(database, store);
    assert.deepEqual(await verifyMasterKey(database, new AesGcmKeyStore(keyB)), {
      status: "rotation-completed",
      previous: idA,
    });
    assert.equal((await readMasterKeyState(database)).previous, undefined);
  });
});

describe("resealAll", () => {
  beforeEach(reset);

  test("PKCS#11 wallets are skipped: their key stays in the token and the row keeps its URI", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    await seed(new AesGcmKeyStore(keyA), 1);
    const uri = "pkcs11:token=rwa;object=wal_hsm;type=private";
    await database.pool.query(
      "INSERT INTO orgs (id, name, scopes) VALUES ('org_hsm', 'hsm', '{read}')",
    );
    await database.pool.query(
      "INSERT INTO wallets (id, org_id, address, encrypted_key, signer_backend) VALUES ('wal_hsm', 'org_hsm', '0x01', $1, 'pkcs11')",
      [uri],
    );
    const store = new AesGcmKeyStore(keyB, keyA);
    const check = await verifyMasterKey(database, store);
    assert.equal(check.status === "rotation-started" && check.pending["custodial keys"], 1);
    await resealAll(database, store);
    assert.equal((await completeRotation(database, store)).completed, true);
    const { rows } = await database.pool.query(
      "SELECT encrypted_key FROM wallets WHERE id = 'wal_hsm'",
    );
    assert.equal(rows[0].encrypted_key, uri);
  });

  test("rows added during the run under the new key are left as they are; none is sealed twice", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    const before = await seed(new AesGcmKeyStore(keyA), 4);
    const store = new AesGcmKeyStore(keyB, keyA);
    await verifyMasterKey(database, store);
    let added: Map<string, string> | undefined;
    await resealAll(database, store, {
      batchSize: 1,
      onBatch: async (progress) => {
        // The live service registers an organization mid-run (sealed under the new key).
        if (progress.batch === 2) added = await seed(new AesGcmKeyStore(keyB), 1);
      },
    });
    assert.ok(added !== undefined);
    assert.deepEqual(await openAll(new AesGcmKeyStore(keyB)), new Map([...before, ...added]));
  });

  test("an envelope under a third key stops the rotation, naming the row, and nothing is lost", async () => {
    await verifyMasterKey(database, new AesGcmKeyStore(keyA));
    await seed(new AesGcmKeyStore(keyA), 2);
    const stranger = await seed(new AesGcmKeyStore(keyC), 1);
    const store = new AesGcmKeyStore(keyB, keyA);
    await verifyMasterKey(database, store);
    const walletId = [...stranger.keys()].find((id) => id.startsWith("wal_"))!;
    await assert.rejects(
      resealAll(database, store),
      (error: unknown) =>
        error instanceof MasterKeyRotationError &&
        error.message.includes(`2 envelope(s) are sealed under neither`) &&
        error.message.includes(`wallets ${walletId} (key id ${masterKeyId(keyC)})`),
    );
    assert.equal((await completeRotation(database, store)).completed, false);
    assert.deepEqual(await countNotSealedUnder(database.pool, idB), {
      "custodial keys": 1,
      "webhook secrets": 1,
      "TOTP secrets": 0,
    });
  });

  test("a store without a previous key cannot rotate", async () => {
    await assert.rejects(
      resealAll(database, new AesGcmKeyStore(keyB)),
      /No previous master key: set MASTER_KEY to the new key and MASTER_KEY_PREVIOUS to the old one/,
    );
  });
});

describe("npm run rotate-master-key in development (keys in DATA_DIR/secrets.json)", () => {
  beforeEach(reset);

  test("the first run puts a new key in the file and asks for a restart; the second re-seals and drops the old key", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "rwa-rotate-dev-"));
    try {
      const { secrets } = await ensureDevSecrets(dataDir, ["adminToken", "masterKey"]);
      const oldKey = secrets.masterKey!;
      await verifyMasterKey(database, new AesGcmKeyStore(oldKey));
      const plaintexts = await seed(new AesGcmKeyStore(oldKey), 2);
      const env = { NODE_ENV: "development", DATA_DIR: dataDir, DATABASE_URL: testDatabase.url };
      const run = async () => {
        const lines: string[] = [];
        const code = await rotateMasterKeyCommand({ argv: [], env, print: (l) => lines.push(l) });
        return { code, output: lines.join("\n") };
      };
      const readFile = () =>
        JSON.parse(readFileSync(path.join(dataDir, "secrets.json"), "utf8")) as Record<
          string,
          string
        >;

      const first = await run();
      assert.equal(first.code, 0, first.output);
      assert.match(first.output, /Generated a new master key .*\nNext: restart `npm start`/s);
      const file = readFile();
      assert.equal(file.masterKeyPrevious, oldKey);
      assert.notEqual(file.masterKey, oldKey);
      assert.deepEqual(
        await countNotSealedUnder(database.pool, masterKeyId(oldKey)),
        {
          "custodial keys": 0,
          "webhook secrets": 0,
          "TOTP secrets": 0,
        },
        "the first run re-seals nothing",
      );

      // `npm start` now reads both keys from the file.
      const config = resolveConfig(parseEnv({ DATA_DIR: dataDir }), readFile());
      assert.equal(config.masterKey, file.masterKey);
      assert.equal(config.masterKeyPrevious, oldKey);

      const second = await run();
      assert.equal(second.code, 0, second.output);
      assert.match(second.output, /Rotation complete: 2 custodial keys and 2 webhook secrets/);
      assert.equal(readFile().masterKeyPrevious, undefined);
      assert.equal(readFile().masterKey, file.masterKey);
      assert.deepEqual(await openAll(new AesGcmKeyStore(file.masterKey!)), plaintexts);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
