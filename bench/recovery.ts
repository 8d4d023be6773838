/**
 * Recovery figures (docs/recovery.md "Figures"): `npm run backup` and `npm run restore` time and
 * size for 100,000 writes, and the time from a restore to taking writes again.
 *
 * The 100,000 writes are seeded directly in the database (not sent to the chain): the real
 * issuance row of one write, its hash row, its idempotency record and its asset row, copied with
 * new ids. Then 30 writes are made on chain after the backup, a new service on a new database
 * restores the backup and starts (the reconciliation rebuilds those 30 from the chain), and the
 * first write it takes is timed.
 *
 * Run: npm run bench -- recovery  (env BENCH_RECOVERY_WRITES, default 100000)
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { backupCommand, restoreCommand } from "../relayer/src/recovery/recovery-commands.js";
import { recoveryCommandEnv } from "../test/support/chain-state.js";
import { startTestStack } from "../test/support/stack.js";
import { assetBody, startWriteStack } from "../test/relayer/writes/helpers.js";
import { runAsScript } from "./support/run-as-script.js";

const WRITES = Number(process.env.BENCH_RECOVERY_WRITES ?? 100_000);
const AFTER = 30;

export async function runRecoveryBench(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-bench-recovery-"));
  const first = await startWriteStack();
  try {
    const org = await first.registerOrg();
    const res = await org.api("POST", "/api/v1/write/issue-asset", {
      body: assetBody({ name: "template" }),
      headers: { "Idempotency-Key": "template" },
    });
    if (res.status !== 200) throw new Error(res.text);
    const id = res.headers.get("x-transaction-id")!;
    const tokenId = (res.body as { tokenId: string }).tokenId;
    const pool = first.database.pool;
    const seeded = Date.now();
    // Each table's row copied as a whole, with new keys (whatever columns the migrations made).
    await pool.query(
      `INSERT INTO transactions
         SELECT (jsonb_populate_record(t, jsonb_build_object(
                  'id', 'tx_' || lpad(to_hex(g), 24, '0'), 'nonce', 1000000 + g))).*
           FROM transactions t, generate_series(1, $2) g WHERE t.id = $1`,
      [id, WRITES],
    );
    await pool.query(
      `INSERT INTO transaction_hashes SELECT '0x' || lpad(to_hex(g), 64, '0'), 'tx_' || lpad(to_hex(g), 24, '0')
         FROM generate_series(1, $1) g`,
      [WRITES],
    );
    await pool.query(
      `INSERT INTO idempotency_keys (org_id, key, request_hash, transaction_id, created_at, expires_at)
         SELECT org_id, 'key-' || g, request_hash, 'tx_' || lpad(to_hex(g), 24, '0'), created_at, expires_at
           FROM idempotency_keys k, generate_series(1, $2) g WHERE k.key = 'template' AND k.org_id = $1`,
      [org.orgId, WRITES],
    );
    await pool.query(
      `INSERT INTO assets
         SELECT (jsonb_populate_record(a, jsonb_build_object('token_id', 1000000 + g))).*
           FROM assets a, generate_series(1, $2) g WHERE a.token_id = $1`,
      [tokenId, WRITES],
    );
    console.log(`seeded ${WRITES} writes in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);

    const env = await recoveryCommandEnv(first, dir);
    const io = { print: () => undefined, printError: (l: string) => console.error(l) };
    const file = path.join(dir, "bench.backup");
    let t = Date.now();
    if ((await backupCommand({ argv: ["--out", file], env, ...io })) !== 0)
      throw new Error("backup failed");
    const backupSeconds = (Date.now() - t) / 1000;
    const size = statSync(file).size;
    // What the rows weigh before compression (each row as its JSON text, as the backup holds it).
    const tables = (
      await pool.query<{ t: string }>(
        `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`,
      )
    ).rows.map((r) => r.t);
    let raw = 0;
    for (const table of tables)
      raw += Number(
        (
          await pool.query<{ n: string | null }>(
            `SELECT sum(length(row_to_json(x)::text))::text AS n FROM "${table}" x`,
          )
        ).rows[0]?.n ?? 0,
      );
    console.log(
      `rows as JSON text: ${(raw / 1e6).toFixed(1)} MB (${(raw / WRITES).toFixed(0)} bytes per write); ` +
        `the seeded rows are copies of one row, so they compress far better than real ones would`,
    );
    console.log(
      `backup: ${backupSeconds.toFixed(1)} s, ${(size / 1e6).toFixed(1)} MB (${(size / WRITES).toFixed(0)} bytes per write)`,
    );

    for (let i = 0; i < AFTER; i++) {
      const made = await org.api("POST", "/api/v1/write/issue-asset", {
        body: assetBody({ name: `after ${i}` }),
        headers: { "Idempotency-Key": `after-${i}` },
      });
      if (made.status !== 200) throw new Error(made.text);
    }
    await first.indexer.stop();
    await first.ctx.engine.stop();

    const second = await startTestStack({
      logLevel: "warn",
      startChain: () => Promise.resolve({ ...first.anvil, stop: () => Promise.resolve() }),
      contracts: first.ctx.contracts,
      config: { masterKey: first.ctx.config.masterKey },
    });
    try {
      t = Date.now();
      const code = await restoreCommand({
        argv: [file, "--force"],
        env: { ...env, DATABASE_URL: second.testDatabase.url },
        ...io,
      });
      if (code !== 0) throw new Error("restore failed");
      const restoreSeconds = (Date.now() - t) / 1000;
      t = Date.now();
      await second.ctx.engine.start();
      const reconcileSeconds = (Date.now() - t) / 1000;
      const next = await second.api("POST", "/api/v1/write/issue-asset", {
        apiKey: org.apiKey,
        body: assetBody({ name: "first after the restore" }),
        headers: { Prefer: "respond-async" },
      });
      if (next.status !== 202) throw new Error(next.text);
      const acceptSeconds = (Date.now() - t) / 1000;
      console.log(`restore: ${restoreSeconds.toFixed(1)} s`);
      console.log(
        `start after the restore: reconciled ${AFTER} writes sent after the backup in ${reconcileSeconds.toFixed(1)} s; ` +
          `first write accepted ${acceptSeconds.toFixed(1)} s after the start, ` +
          `${(restoreSeconds + acceptSeconds).toFixed(1)} s after the restore began`,
      );
      await second.ctx.engine.stop();
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runAsScript(import.meta.url, runRecoveryBench);
