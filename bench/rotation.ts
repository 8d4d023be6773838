/**
 * Master-key rotation benchmark: how fast `npm run rotate-master-key` re-seals (README,
 * "Rotating the master key"). Seeds a fresh PostgreSQL database with ROWS local wallets and ROWS
 * webhooks sealed under one key, then re-seals them under another with `resealAll`, once per
 * batch size. Prints, without asserting: rows re-sealed per second and the p50/p95 of one
 * committed batch, for each batch size.
 *
 * Run: npm run bench -- rotation  (env BENCH_ROTATION_ROWS: rows per table, default 2000)
 */
import { randomBytes } from "node:crypto";
import { createDatabase } from "../relayer/src/db/client.js";
import { runMigrations } from "../relayer/src/db/migrate.js";
import { completeRotation, verifyMasterKey } from "../relayer/src/infra/master-key-check.js";
import { resealAll } from "../relayer/src/infra/master-key-rotation.js";
import { AesGcmKeyStore } from "../relayer/src/wallets/key-store.js";
import { createTestDatabase, stopTestServer } from "../test/support/postgres.js";
import { percentile } from "./support/percentile.js";
import { runAsScript } from "./support/run-as-script.js";

const ROWS = Number(process.env.BENCH_ROTATION_ROWS ?? 2000);
const BATCH_SIZES = [100, 1000];

export async function runRotationBench(): Promise<void> {
  const testDatabase = await createTestDatabase();
  const database = createDatabase(testDatabase.url);
  try {
    await runMigrations(database);
    let key = randomBytes(32).toString("hex");
    await verifyMasterKey(database, new AesGcmKeyStore(key));
    const sealer = new AesGcmKeyStore(key);
    const ids = Array.from({ length: ROWS }, (_, i) => `${i.toString().padStart(8, "0")}`);
    await database.pool.query(
      "INSERT INTO orgs (id, name, scopes) SELECT 'org_' || id, id, '{read}' FROM unnest($1::text[]) AS id",
      [ids],
    );
    await database.pool.query(
      `INSERT INTO wallets (id, org_id, address, encrypted_key)
       SELECT 'wal_' || v.id, 'org_' || v.id, '0x' || v.id, v.envelope
         FROM unnest($1::text[], $2::text[]) AS v(id, envelope)`,
      [ids, ids.map((id) => sealer.seal(`0x${randomBytes(32).toString("hex")}`, `wal_${id}`))],
    );
    await database.pool.query(
      `INSERT INTO webhooks (id, org_id, url, events, encrypted_secret)
       SELECT 'wh_' || v.id, 'org_' || v.id, 'https://example.com/h', '{asset.issued}', v.envelope
         FROM unnest($1::text[], $2::text[]) AS v(id, envelope)`,
      [
        ids,
        ids.map((id) => sealer.seal(`whsec_${randomBytes(32).toString("base64")}`, `wh_${id}`)),
      ],
    );

    console.log(`\nre-sealing ${ROWS} custodial keys + ${ROWS} webhook secrets`);
    console.log("  batch size   rows/s   batch p50 ms   batch p95 ms   batches");
    for (const batchSize of BATCH_SIZES) {
      const next = randomBytes(32).toString("hex");
      const store = new AesGcmKeyStore(next, key);
      await verifyMasterKey(database, store); // begins the rotation
      const batchMs: number[] = [];
      let last = performance.now();
      const t0 = last;
      const result = await resealAll(database, store, {
        batchSize,
        onBatch: () => {
          const now = performance.now();
          batchMs.push(now - last);
          last = now;
        },
      });
      const seconds = (performance.now() - t0) / 1000;
      if (!(await completeRotation(database, store)).completed)
        throw new Error("the rotation did not complete");
      const rows = Object.values(result.resealed).reduce((a, b) => a + b, 0);
      console.log(
        `  ${String(batchSize).padStart(10)}   ${(rows / seconds).toFixed(0).padStart(6)}   ` +
          `${percentile(batchMs, 50).toFixed(1).padStart(12)}   ${percentile(batchMs, 95).toFixed(1).padStart(12)}   ` +
          `${String(result.batches).padStart(7)}`,
      );
      key = next;
    }
  } finally {
    await database.close();
    await testDatabase.drop();
    await stopTestServer();
  }
}

runAsScript(import.meta.url, runRotationBench);
