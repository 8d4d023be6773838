import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import {
  appendAudit,
  AuditEntryError,
  SYSTEM_ORIGIN,
  type AuditOrigin,
} from "../../../relayer/src/audit/audit-writer.js";
import { GENESIS_HASH } from "../../../relayer/src/audit/audit-hash.js";
import { verifyAuditChain } from "../../../relayer/src/audit/verify-chain.js";
import { createDatabase, type Database } from "../../../relayer/src/db/client.js";
import { runMigrations } from "../../../relayer/src/db/migrate.js";
import { orgs } from "../../../relayer/src/db/schema/index.js";
import { AUDIT_ACTIONS, type AuditChanges } from "../../../relayer/src/domain/audit.js";
import { createTestDatabase, stopTestServer, type TestDatabase } from "../../support/postgres.js";

/**
 * The audit chain against a real PostgreSQL: appends from two pools at once (as from two relayer
 * processes) never fork it, an append shares its action's transaction, and `npm run audit:verify`
 * finds the first broken link after rows are edited, re-hashed, removed or cut off in SQL.
 */

const execFileAsync = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "..", "..", "..");

const origin: AuditOrigin = { actor: "key_test", requestId: "req-1", sourceAddress: "127.0.0.1" };

/** Runs `npm run audit:verify`'s program on `url`; returns its exit code and output. */
async function runVerify(url: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      ["--import", "tsx", path.join(REPO, "relayer/src/audit/verify-cli.ts")],
      { cwd: REPO, env: { ...process.env, DATABASE_URL: url }, timeout: 30_000 },
    );
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, out: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe("audit chain (PostgreSQL)", { timeout: 120_000 }, () => {
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
  beforeEach(async () => {
    await database.pool.query("TRUNCATE audit_log");
    await database.pool.query("UPDATE audit_chain_head SET last_id = 0, last_hash = $1", [
      GENESIS_HASH,
    ]);
  });

  const append = (n: number, db: Database = database) =>
    appendAudit(db.db, origin, {
      orgId: "org_a",
      action: AUDIT_ACTIONS.apiKeyCreated,
      target: `key_${n}`,
      changes: { label: `label ${n}`, scopes: ["read"], n },
    });

  it("two writers on two pools appending in parallel never fork the chain", async () => {
    const second = createDatabase(testDatabase.url, { max: 8 });
    try {
      // Each writer keeps 8 appends in flight (its pool's size), 120 in all, like a busy relayer.
      const LANES = 8;
      const PER_LANE = 15;
      const total = 2 * LANES * PER_LANE;
      const results = (
        await Promise.all(
          [database, second].flatMap((db, w) =>
            Array.from({ length: LANES }, async (_, lane) => {
              const out = [];
              for (let i = 0; i < PER_LANE; i++)
                out.push(await append((w * LANES + lane) * PER_LANE + i, db));
              return out;
            }),
          ),
        )
      ).flat();
      const ids = results.map((r) => Number(r.id)).sort((a, b) => a - b);
      assert.deepEqual(
        ids,
        Array.from({ length: total }, (_, i) => i + 1),
        "gapless ids, each used once",
      );
      const { rows } = await database.pool.query<{ n: string; links: string }>(
        "SELECT count(*)::text AS n, count(DISTINCT prev_hash)::text AS links FROM audit_log",
      );
      assert.deepEqual(rows[0], { n: String(total), links: String(total) });
      assert.deepEqual(await verifyAuditChain(database.pool), { intact: true, rows: total });
    } finally {
      await second.close();
    }
  });

  it("an append commits with its action's transaction and vanishes with its rollback", async () => {
    await database.pool.query("INSERT INTO orgs (id, name, scopes) VALUES ('org_a', 'A', '{}')");
    await assert.rejects(
      database.db.transaction(async (tx) => {
        await tx.update(orgs).set({ plan: "pro" }).where(eq(orgs.id, "org_a"));
        await appendAudit(tx, origin, {
          orgId: "org_a",
          action: AUDIT_ACTIONS.orgPlanChanged,
          target: "org_a",
          changes: { plan: { from: "free", to: "pro" } },
        });
        throw new Error("the action fails after its audit row");
      }),
      /the action fails/,
    );
    const count = async () =>
      (await database.pool.query("SELECT count(*)::int AS n FROM audit_log")).rows[0].n as number;
    assert.equal(await count(), 0, "no row for an action that did not happen");
    const row = await database.db.transaction(async (tx) => {
      await tx.update(orgs).set({ plan: "pro" }).where(eq(orgs.id, "org_a"));
      return appendAudit(tx, origin, {
        orgId: "org_a",
        action: AUDIT_ACTIONS.orgPlanChanged,
        target: "org_a",
        changes: { plan: { from: "free", to: "pro" } },
      });
    });
    assert.equal(row.id, "1", "the rolled-back append left no gap");
    assert.equal(row.prevHash, GENESIS_HASH);
    assert.equal(await count(), 1);
    await database.pool.query("DELETE FROM orgs WHERE id = 'org_a'");
  });

  it("a pg client appends inside its BEGIN, and is refused outside a transaction", async () => {
    const client = await database.pool.connect();
    try {
      await assert.rejects(
        appendAudit(client, SYSTEM_ORIGIN, { orgId: null, action: "token.frozen", target: "t" }),
        /SAVEPOINT can only be used in transaction blocks/,
      );
      await client.query("BEGIN");
      const row = await appendAudit(client, SYSTEM_ORIGIN, {
        orgId: null,
        action: "token.frozen",
        target: "token:7",
        changes: { frozen: true },
      });
      await client.query("COMMIT");
      assert.equal(row.id, "1");
      assert.equal(row.actor, "system");
    } finally {
      client.release();
    }
    assert.deepEqual(await verifyAuditChain(database.pool), { intact: true, rows: 1 });
  });

  it("refuses malformed action names and changes that name or hold a secret", async () => {
    const refused = [
      { action: "Key Created", changes: {} },
      { action: "api_key.created", changes: { secret: "abc" } },
      { action: "api_key.created", changes: { apiKey: "x" } },
      { action: "webhook.created", changes: { privateKey: "0x01" } },
      { action: "webhook.created", changes: { nested: { adminToken: "x" } } },
      { action: "webhook.created", changes: { note: `rwa_live_${"ab".repeat(32)}` } },
      { action: "webhook.created", changes: { list: [`whsec_${"A".repeat(20)}`] } },
      { action: "webhook.created", changes: { n: Number.POSITIVE_INFINITY } },
    ] as const;
    for (const entry of refused) {
      await assert.rejects(
        appendAudit(database.db, origin, {
          orgId: null,
          target: null,
          ...(entry as unknown as { action: `${string}.${string}`; changes: AuditChanges }),
        }),
        AuditEntryError,
        JSON.stringify(entry),
      );
    }
    const { rows } = await database.pool.query("SELECT count(*)::int AS n FROM audit_log");
    assert.equal(rows[0].n, 0);
  });

  it("rows hash what is stored: odd strings and numbers verify after the jsonb round trip", async () => {
    await appendAudit(database.db, origin, {
      orgId: null,
      action: "org.renamed",
      target: "lone \uD800 surrogate",
      changes: {
        name: 'Ünïcødé 😀 \u2028 "quoted" \\ back',
        lone: "a\uDC00b",
        nul: "a\u0000b",
        numbers: [0, -1, 1.5, 1e21, 0.1 + 0.2, Number.MAX_SAFE_INTEGER],
        nested: { z: 1, a: [true, false, null], "\uD83D": "key" },
        skipped: undefined as unknown as null,
      },
    });
    assert.deepEqual(await verifyAuditChain(database.pool), { intact: true, rows: 1 });
  });

  describe("tampering", () => {
    beforeEach(async () => {
      for (let i = 1; i <= 5; i++) await append(i);
    });

    it("audit:verify reports an intact chain with exit code 0", async () => {
      const { code, out } = await runVerify(testDatabase.url);
      assert.equal(code, 0, out);
      assert.equal(out.trim(), "5 rows, chain intact");
    });

    it("audit:verify names the row edited in SQL, with exit code 1", async () => {
      await database.pool.query(
        `UPDATE audit_log SET changes = jsonb_set(changes, '{label}', '"edited"') WHERE id = 3`,
      );
      const { code, out } = await runVerify(testDatabase.url);
      assert.equal(code, 1, out);
      assert.match(
        out,
        /^Audit chain broken at row 3: its contents hash to [0-9a-f]{64}, expected the stored hash [0-9a-f]{64} \(the row was changed\)/,
      );
      assert.match(out, /\(2 rows before it are intact\)/);
    });

    for (const [column, value] of [
      ["actor", "'admin'"],
      ["at", "at + interval '1 millisecond'"],
      ["action", "'api_key.revoked'"],
      ["source_address", "NULL"],
      ["org_id", "'org_b'"],
    ] as const) {
      it(`an edited ${column} is named too`, async () => {
        await database.pool.query(`UPDATE audit_log SET ${column} = ${value} WHERE id = 2`);
        const verdict = await verifyAuditChain(database.pool);
        assert.equal(verdict.intact, false);
        assert.equal(verdict.intact === false && verdict.brokenAt, "2");
      });
    }

    it("a row edited and re-hashed breaks the link of the row after it", async () => {
      const { rows } = await database.pool.query<{ hash: string }>(
        "UPDATE audit_log SET hash = repeat('a', 64) WHERE id = 2 RETURNING hash",
      );
      assert.equal(rows.length, 1);
      const verdict = await verifyAuditChain(database.pool);
      // The stored hash no longer matches row 2's contents: row 2 is named first.
      assert.equal(verdict.intact === false && verdict.brokenAt, "2");
    });

    it("a removed row is named by its id", async () => {
      await database.pool.query("DELETE FROM audit_log WHERE id = 4");
      const verdict = await verifyAuditChain(database.pool);
      assert.deepEqual(verdict, {
        intact: false,
        rows: 3,
        brokenAt: "4",
        reason: "row 4 is missing: row 3 is followed by row 5",
      });
    });

    it("rows cut off the end are found through the chain head", async () => {
      await database.pool.query("DELETE FROM audit_log WHERE id >= 4");
      const verdict = await verifyAuditChain(database.pool);
      assert.deepEqual(verdict, {
        intact: false,
        rows: 3,
        brokenAt: "4",
        reason: "row 4 is missing: the chain head records 5 rows, the log ends at row 3",
      });
    });
  });
});
