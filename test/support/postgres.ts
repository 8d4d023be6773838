import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { findFreePort } from "../../deploy/local-chain.js";
import { createDatabase } from "../../relayer/src/db/client.js";
import { MIGRATIONS_FOLDER, runMigrations } from "../../relayer/src/db/migrate.js";
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
 *
 * Migrating a database takes 1-2 s (16 migrations, more under load), so the server keeps one
 * migrated template per set of migrations (`rwa_tpl_<hash of the migrations folder>`), built once
 * by whichever test process needs it first, under an advisory lock, and every test database is a
 * copy of it (`CREATE DATABASE ... TEMPLATE`, a few hundred ms). A relayer started on a copy finds
 * every migration applied. On the embedded server (one per test process) the template is built
 * once per process.
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

/** Any constant: test processes building the template serialise on it (on the server's database). */
const TEMPLATE_LOCK_ID = 0x7277_6174; // "rwat"

/** The template's name: a hash of every file under the migrations folder (SQL and journal). */
function templateName(): string {
  const hash = createHash("sha256");
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full, `${prefix}${entry.name}/`);
      else hash.update(`${prefix}${entry.name}\0`).update(readFileSync(full)).update("\0");
    }
  };
  walk(MIGRATIONS_FOLDER, "");
  return `rwa_tpl_${hash.digest("hex").slice(0, 16)}`;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(serverUrl: string, body: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    return await body(admin);
  } finally {
    await admin.end();
  }
}

const templates = new Map<string, Promise<string>>();

/**
 * The migrated template on `serverUrl`, built if missing. Another test process may be building
 * it at the same moment: the advisory lock makes the second wait and then find it. The build
 * goes into a database of another name, renamed once migrated, so an interrupted build never
 * leaves a half-migrated template behind. Old templates (other migrations) are left in place: a
 * run on another checkout may still be copying them.
 */
function migratedTemplate(serverUrl: string): Promise<string> {
  let template = templates.get(serverUrl);
  if (template === undefined) {
    template = buildTemplate(serverUrl);
    templates.set(serverUrl, template);
    template.catch(() => templates.delete(serverUrl));
  }
  return template;
}

async function buildTemplate(serverUrl: string): Promise<string> {
  const name = templateName();
  return withAdmin(serverUrl, async (admin) => {
    const exists = async () =>
      (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1;
    if (await exists()) return name;
    await admin.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK_ID]);
    try {
      if (await exists()) return name;
      const building = `${name}_building`;
      await admin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${building}"`);
      const database = createDatabase(databaseUrl(serverUrl, building), { max: 2 });
      try {
        await runMigrations(database);
      } finally {
        await database.close();
      }
      await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
      return name;
    } finally {
      await admin.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK_ID]);
    }
  });
}

/**
 * Builds the migrated template now (scripts/test.sh calls it once, beside the unit tests, so the
 * first test files do not wait for it) and returns its name.
 */
export async function prepareTemplate(): Promise<string> {
  return migratedTemplate(await testServerUrl());
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Options of `createTestDatabase`. */
export interface CreateTestDatabaseOptions {
  /**
   * A copy of the migrated template (default true), or an empty database (false) for a test
   * of what migrating one does.
   */
  migrated?: boolean;
}

/**
 * Creates a fresh database on the test server: a copy of the migrated template (every
 * migration applied, no rows) unless `migrated` is false.
 */
export async function createTestDatabase(
  options: CreateTestDatabaseOptions = {},
): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  const template = options.migrated === false ? undefined : await migratedTemplate(serverUrl);
  const name = `rwa_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await withAdmin(serverUrl, (admin) =>
    admin.query(
      template === undefined
        ? `CREATE DATABASE "${name}"`
        : `CREATE DATABASE "${name}" TEMPLATE "${template}"`,
    ),
  );
  return {
    url: databaseUrl(serverUrl, name),
    name,
    async drop() {
      await withAdmin(serverUrl, (admin) =>
        admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
      );
    },
  };
}

/** Stops the embedded server if this process started one. Call from a global `after`. */
export async function stopTestServer(): Promise<void> {
  if (!embedded) return;
  const server = embedded;
  embedded = undefined;
  serverUrlPromise = undefined;
  templates.delete(server.handle.url);
  await server.handle.stop();
  removeFolders(server);
}
