import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { findFreePort } from "../../deploy/local-chain.js";
import {
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from "../../relayer/src/infra/embedded-postgres.js";

/**
 * Test databases. With `DATABASE_URL` set, tests use that server (CI: the PostgreSQL at
 * 127.0.0.1:5432); otherwise one embedded PostgreSQL is started per test process, the same way
 * `npm start` starts its own (`relayer/src/infra/embedded-postgres.ts`: as root it runs as the
 * `postgres` user from places that user can reach, and every wait has a deadline), in a temporary
 * folder. Each suite gets a fresh database of its own, dropped at the end.
 */

let embedded: { handle: EmbeddedPostgresHandle; dir: string } | undefined;
let serverUrlPromise: Promise<string> | undefined;

async function startEmbedded(): Promise<string> {
  const port = await findFreePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), "rwa-test-pg-"));
  chmodSync(dir, 0o711); // as root, the postgres user must be able to enter it
  let handle: EmbeddedPostgresHandle;
  try {
    handle = await startEmbeddedPostgres({
      dataDir: dir,
      password: "postgres",
      port,
      database: "postgres",
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `The tests' embedded PostgreSQL did not start (set DATABASE_URL to use another server): ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  }
  embedded = { handle, dir };
  // A test process that ends without stopTestServer() leaves no server behind.
  process.once("exit", () => {
    if (embedded === undefined) return;
    embedded.handle.kill();
    removeFolders(embedded);
  });
  return handle.url;
}

function removeFolders(server: { handle: EmbeddedPostgresHandle; dir: string }): void {
  rmSync(server.handle.clusterDir, { recursive: true, force: true });
  rmSync(server.dir, { recursive: true, force: true });
}

/** URL of the server tests run against (starting the embedded one on first use). */
export function testServerUrl(): Promise<string> {
  serverUrlPromise ??= process.env.DATABASE_URL
    ? Promise.resolve(process.env.DATABASE_URL)
    : startEmbedded();
  return serverUrlPromise;
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates a fresh, empty database on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  const name = `rwa_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Stops the embedded server if this process started one. Call from a global `after`. */
export async function stopTestServer(): Promise<void> {
  if (!embedded) return;
  const server = embedded;
  embedded = undefined;
  serverUrlPromise = undefined;
  await server.handle.stop();
  removeFolders(server);
}
