import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { generateIdentity, identityToRecipient } from "age-encryption";
import pg from "pg";
import { backupCommand, restoreCommand } from "../../../relayer/src/recovery/recovery-commands.js";
import { verifyAuditChain } from "../../../relayer/src/audit/verify-chain.js";
import { findFreePort, startAnvil } from "../../../deploy/local-chain.js";
import { recoveryCommandEnv, writeDeploymentRecord } from "../../support/chain-state.js";
import { createTestDatabase, type TestDatabase } from "../../support/postgres.js";
import type { TestOrg } from "../../support/stack.js";
import { orgSigner } from "../webhooks/chain-helpers.js";
import { assetBody, startWriteStack, type WriteStack } from "../writes/helpers.js";

/**
 * `npm run backup` and `npm run restore` (docs/recovery.md) against a real anvil and PostgreSQL:
 * the restored database holds exactly the rows backed up, and every refusal the issue lists is
 * made with nothing written.
 */
describe("backup and restore", { timeout: 180_000 }, () => {
  let stack: WriteStack;
  let org: TestOrg;
  const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-backup-test-"));
  const deploymentFile = path.join(dir, "deployments", "1236.json");
  const databases: TestDatabase[] = [];
  let env: NodeJS.ProcessEnv;

  async function run(command: typeof backupCommand, argv: string[], extra: NodeJS.ProcessEnv = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await command({
      argv,
      env: { ...env, ...extra },
      print: (line) => out.push(line),
      printError: (line) => err.push(line),
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  /** Every row of every public table, as sorted JSON texts per table. */
  async function contents(url: string): Promise<Record<string, string[]>> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const tables = (
        await client.query<{ t: string }>(
          `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`,
        )
      ).rows.map((r) => r.t);
      const all: Record<string, string[]> = {};
      for (const table of tables) {
        const rows = await client.query<{ j: string }>(
          `SELECT row_to_json(t)::text AS j FROM "${table}" t`,
        );
        all[table] = rows.rows.map((r) => r.j).sort();
      }
      return all;
    } finally {
      await client.end();
    }
  }

  /**
   * `contents` of a restored database, whose restore also listed every custodial wallet for its
   * reconciliation with the chain from the backup's head (`chain_reconciliations`): checked, and
   * left out so that the rest compares with the source.
   */
  async function restoredContents(url: string, file: string): Promise<Record<string, string[]>> {
    const all = await contents(url);
    const bytes = readFileSync(file);
    const header = JSON.parse(bytes.subarray(0, bytes.indexOf(0x0a)).toString("utf8"));
    const listed = (all.chain_reconciliations ?? []).map((j) => JSON.parse(j));
    const wallets = (all.wallets ?? []).map((j) => (JSON.parse(j) as { id: string }).id).sort();
    assert.deepEqual(listed.map((r: { wallet_id: string }) => r.wallet_id).sort(), wallets);
    for (const r of listed) {
      assert.equal(r.from_block, header.chainHead.number);
      assert.equal(r.reason, "restore");
    }
    return withoutAudit({ ...all, chain_reconciliations: [] });
  }

  /**
   * `contents` without the audit log: a backup appends its `backup.taken` row to the source after
   * its snapshot, and a restore its `backup.restored` row to the rows it restored (checked in
   * their own test).
   */
  function withoutAudit(all: Record<string, string[]>): Record<string, string[]> {
    const { audit_log: _log, audit_chain_head: _head, ...rest } = all;
    return rest;
  }

  async function emptyDatabase(): Promise<TestDatabase> {
    const database = await createTestDatabase({ migrated: false });
    databases.push(database);
    return database;
  }

  before(async () => {
    stack = await startWriteStack();
    org = await stack.registerOrg();
    for (let i = 0; i < 3; i++) {
      const res = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: `Backed up ${i}` }),
      });
      assert.equal(res.status, 200, res.text);
    }
    // Quiet from here on (the engine renews its wallet leases every few seconds), so that the
    // source can be compared row for row with what a restore writes.
    await stack.indexer.stop();
    await stack.ctx.engine.stop();
    env = await recoveryCommandEnv(stack, dir);
  });

  after(async () => {
    for (const database of databases) await database.drop().catch(() => undefined);
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("restores into an empty database exactly the rows backed up, sealed under the master key", async () => {
    const file = path.join(dir, "one.backup");
    const made = await run(backupCommand, ["--out", file]);
    assert.equal(made.code, 0, made.err);
    assert.match(made.out, /Wrote .*one\.backup: \d+ rows of \d+ tables/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const text = readFileSync(file);
    assert.ok(!text.includes(Buffer.from("Backed up 0")), "the rows are sealed, not in clear");
    const header = JSON.parse(text.subarray(0, text.indexOf(0x0a)).toString("utf8"));
    assert.equal(header.chainId, 1236);
    assert.equal(typeof header.chainHead.number, "number");
    assert.equal(header.sealing, "master-key");

    const again = await run(backupCommand, ["--out", file]);
    assert.equal(again.code, 1);
    assert.match(again.err, /exists: not written over/);

    const target = await emptyDatabase();
    const restored = await run(restoreCommand, [file], { DATABASE_URL: target.url });
    assert.equal(restored.code, 0, restored.err);
    const before = withoutAudit(await contents(stack.testDatabase.url));
    assert.ok((before.assets ?? []).length >= 3, "the source holds the issued assets");
    assert.deepEqual(await restoredContents(target.url, file), before);

    // A database with rows is not restored over, unless told --force.
    const refused = await run(restoreCommand, [file], { DATABASE_URL: target.url });
    assert.equal(refused.code, 1);
    assert.match(refused.err, /holds \d+ rows \(.*assets 3.*\): not restored over \(add --force/);
    const forced = await run(restoreCommand, [file, "--force"], { DATABASE_URL: target.url });
    assert.equal(forced.code, 0, forced.err);
    assert.deepEqual(await restoredContents(target.url, file), before);
  });

  it("refuses a truncated, tampered or foreign backup, saying which, and writes nothing", async () => {
    const file = path.join(dir, "two.backup");
    assert.equal((await run(backupCommand, ["--out", file])).code, 0);
    const bytes = readFileSync(file);
    const headerEnd = bytes.indexOf(0x0a);
    const variant = (name: string, content: Buffer) => {
      const target = path.join(dir, name);
      writeFileSync(target, content);
      return target;
    };
    const flipped = Buffer.from(bytes);
    flipped[headerEnd + 40] = flipped[headerEnd + 40]! ^ 0xff;
    const header = JSON.parse(bytes.subarray(0, headerEnd).toString("utf8"));
    const forgedHeader = Buffer.concat([
      Buffer.from(JSON.stringify({ ...header, createdAt: "2020-01-01T00:00:00.000Z" })),
      bytes.subarray(headerEnd),
    ]);
    const otherDeployment = path.join(dir, "other", "1236.json");
    const record = JSON.parse(readFileSync(deploymentFile, "utf8"));
    record.contracts.AssetToken.address = "0x000000000000000000000000000000000000dEaD";
    writeDeploymentRecord(otherDeployment, JSON.stringify(record));

    const cases: Array<[string, string, NodeJS.ProcessEnv, RegExp]> = [
      [
        "truncated",
        variant("cut.backup", bytes.subarray(0, bytes.length - 100)),
        {},
        /is truncated: \d+ of its \d+ payload bytes/,
      ],
      [
        "a flipped byte",
        variant("flip.backup", flipped),
        {},
        /was tampered with: its payload or header fails authentication/,
      ],
      ["a forged header", variant("forged.backup", forgedHeader), {}, /was tampered with/],
      [
        "not a backup",
        variant("junk.backup", Buffer.from("hello\nworld")),
        {},
        /is not a backup of this service/,
      ],
      [
        "another master key",
        file,
        { MASTER_KEY: randomBytes(32).toString("hex") },
        /is sealed under another master key \(key id [0-9a-f]{16}; this service's is [0-9a-f]{16}\)/,
      ],
      [
        "another deployment",
        file,
        { DEPLOYMENTS_FILE: otherDeployment },
        /is from another deployment: its assetToken is 0x/,
      ],
    ];
    for (const [what, name, extra, message] of cases) {
      const target = await emptyDatabase();
      const result = await run(restoreCommand, [name], { DATABASE_URL: target.url, ...extra });
      assert.equal(result.code, 1, `${what}: ${result.err}`);
      assert.match(result.err, message, what);
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      const tables = await client.query(`SELECT 1 FROM pg_tables WHERE schemaname = 'public'`);
      await client.end();
      assert.equal(tables.rowCount, 0, `${what}: nothing written`);
    }
  });

  it("with BACKUP_RECIPIENTS, seals to age recipients: only their identity restores it", async () => {
    const identity = await generateIdentity();
    const recipient = await identityToRecipient(identity);
    const file = path.join(dir, "age.backup");
    const made = await run(backupCommand, ["--out", file], { BACKUP_RECIPIENTS: recipient });
    assert.equal(made.code, 0, made.err);
    assert.match(made.out, /sealed to 1 age recipient/);

    const target = await emptyDatabase();
    const none = await run(restoreCommand, [file], { DATABASE_URL: target.url });
    assert.equal(none.code, 1);
    assert.match(none.err, /sealed to age recipients: set BACKUP_IDENTITY/);
    const wrong = await run(restoreCommand, [file], {
      DATABASE_URL: target.url,
      BACKUP_IDENTITY: await generateIdentity(),
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /sealed to other age recipients than BACKUP_IDENTITY/);
    const identityFile = path.join(dir, "identity.txt");
    writeFileSync(identityFile, `# created for the test\n${identity}\n`, { mode: 0o600 });
    const right = await run(restoreCommand, [file], {
      DATABASE_URL: target.url,
      BACKUP_IDENTITY: identityFile,
    });
    assert.equal(right.code, 0, right.err);
    assert.deepEqual(
      await restoredContents(target.url, file),
      withoutAudit(await contents(stack.testDatabase.url)),
    );
  });

  it("says when a wallet sent transactions after the backup that the restored rows do not know", async () => {
    const file = path.join(dir, "behind.backup");
    assert.equal((await run(backupCommand, ["--out", file])).code, 0);
    const target = await emptyDatabase();
    const quiet = await run(restoreCommand, [file], { DATABASE_URL: target.url });
    assert.equal(quiet.code, 0, quiet.err);
    assert.match(quiet.out, /Every custodial wallet's nonce on chain matches the restored rows/);
    assert.equal(quiet.err, "");

    // The org's wallet sends one transaction the backup cannot know of.
    const signer = await orgSigner(stack, org.orgId, stack.provider);
    await (await signer.sendTransaction({ to: signer.address, value: 0n })).wait();
    const after = await emptyDatabase();
    const restored = await run(restoreCommand, [file], { DATABASE_URL: after.url });
    assert.equal(restored.code, 0, restored.err);
    assert.match(
      restored.out,
      new RegExp(
        `1 wallet\\(s\\) sent 1 transaction\\(s\\) after this backup .*${signer.address}: 1.*rebuilt from the chain when the service starts`,
        "i",
      ),
    );
  });

  it("refuses a backup from another chain, saying so, and writes nothing", async () => {
    const file = path.join(dir, "chain.backup");
    assert.equal((await run(backupCommand, ["--out", file])).code, 0);
    const other = await startAnvil({
      port: await findFreePort(),
      chainId: 31337,
      reuseExisting: false,
    });
    try {
      const target = await emptyDatabase();
      const result = await run(restoreCommand, [file], {
        DATABASE_URL: target.url,
        RPC_URL: other.rpcUrl,
      });
      assert.equal(result.code, 1, result.err);
      assert.match(result.err, /chain\.backup is from chain 1236; the node at .* is chain 31337/);
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      const tables = await client.query(`SELECT 1 FROM pg_tables WHERE schemaname = 'public'`);
      await client.end();
      assert.equal(tables.rowCount, 0, "nothing written");
    } finally {
      await other.stop();
    }
  });

  it("a restore interrupted half-way leaves no row, and runs again", async () => {
    const file = path.join(dir, "interrupted.backup");
    assert.equal((await run(backupCommand, ["--out", file])).code, 0);
    const target = await emptyDatabase();
    // Interrupted after its first table (as a process killed then: its transaction never commits).
    let tables = 0;
    await assert.rejects(
      restoreCommand({
        argv: [file],
        env: { ...env, DATABASE_URL: target.url },
        print: (line) => {
          if (/^ {2}\w+: \d+ rows/.test(line) && ++tables === 2) throw new Error("interrupted");
        },
        printError: () => undefined,
      }),
      /interrupted/,
    );
    assert.equal(tables, 2, "interrupted half-way");
    // Run again, without --force: the first run left no row behind.
    const again = await run(restoreCommand, [file], { DATABASE_URL: target.url });
    assert.equal(again.code, 0, again.err);
    assert.deepEqual(
      await restoredContents(target.url, file),
      withoutAudit(await contents(stack.testDatabase.url)),
    );
  });

  it("writes backups and restores to the audit log, whose chain stays intact", async () => {
    const file = path.join(dir, "audited.backup");
    assert.equal((await run(backupCommand, ["--out", file])).code, 0);
    const last = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (
          await client.query<{
            action: string;
            target: string;
            actor: string;
            changes: Record<string, unknown>;
          }>(`SELECT action, target, actor, changes FROM audit_log ORDER BY id DESC LIMIT 1`)
        ).rows[0];
      } finally {
        await client.end();
      }
    };
    const taken = await last(stack.testDatabase.url);
    assert.equal(taken?.action, "backup.taken");
    assert.equal(taken?.target, "audited.backup");
    assert.equal(taken?.actor, "system");
    assert.equal(taken?.changes.sealing, "master-key");
    assert.equal((await verifyAuditChain(stack.database.pool)).intact, true);

    const target = await emptyDatabase();
    assert.equal((await run(restoreCommand, [file], { DATABASE_URL: target.url })).code, 0);
    const restored = await last(target.url);
    assert.equal(restored?.action, "backup.restored");
    assert.equal(restored?.target, "audited.backup");
    assert.equal(typeof restored?.changes.rows, "number");
    const pool = new pg.Pool({ connectionString: target.url });
    try {
      assert.equal((await verifyAuditChain(pool)).intact, true);
    } finally {
      await pool.end();
    }
  });

  it("answers bad arguments with what is wrong", async () => {
    const noOut = await run(backupCommand, []);
    assert.equal(noOut.code, 1);
    assert.match(noOut.err, /Missing --out FILE/);
    const badRecipient = await run(backupCommand, ["--out", path.join(dir, "x.backup")], {
      BACKUP_RECIPIENTS: "ssh-rsa AAAA",
    });
    assert.equal(badRecipient.code, 1);
    assert.match(badRecipient.err, /Invalid BACKUP_RECIPIENTS: must be age public keys/);
    const noFile = await run(restoreCommand, []);
    assert.equal(noFile.code, 1);
    assert.match(noFile.err, /Give one backup file/);
    const missing = await run(restoreCommand, [path.join(dir, "nope.backup")]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /Cannot read .*nope\.backup/);
    const unknown = await run(restoreCommand, ["--bogus"]);
    assert.equal(unknown.code, 2);
  });
});
