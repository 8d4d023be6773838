import { readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { parseEnv } from "../config.js";
import { createDatabase, type Database } from "../db/client.js";
import { ConfigError } from "../errors.js";
import { SECRETS_FILE_NAME } from "./dev-secrets.js";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "./embedded-postgres.js";

/** The database an operator's command-line tool works on, and how to let it go. */
export interface CliDatabase {
  database: Database;
  /** Where it is, for messages (never the password). */
  where: string;
  /** Ends the pool, and stops the embedded server when this tool started it. */
  close(): Promise<void>;
}

/** The embedded server's database and state file (as `infra/embedded-postgres.ts` keeps them). */
const EMBEDDED_DATABASE = "rwa_relayer";
const EMBEDDED_STATE_FILE = "postgres.json";

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Opens the relayer's database for a command-line tool the way `npm start` finds it:
 * `DATABASE_URL` when set; otherwise the embedded PostgreSQL of `DATA_DIR` (default `.data`),
 * joined while the service runs, or started for the tool's run and stopped by `close()`.
 *
 * @throws ConfigError when neither `DATABASE_URL` nor an embedded database exists
 * @example
 * const { database, close } = await openCliDatabase();
 * try { ... } finally { await close(); }
 */
export async function openCliDatabase(env: NodeJS.ProcessEnv = process.env): Promise<CliDatabase> {
  const settings = parseEnv(env);
  const options = { max: 2, applicationName: "rwa-relayer-cli" };
  if (settings.databaseUrl !== undefined) {
    const database = createDatabase(settings.databaseUrl, options);
    return { database, where: "DATABASE_URL", close: () => database.close() };
  }
  const secrets = await readJson(path.join(settings.dataDir, SECRETS_FILE_NAME));
  const password = secrets?.postgresPassword;
  if (typeof password !== "string") {
    throw new ConfigError(
      `No DATABASE_URL, and no embedded database in ${settings.dataDir} (start the service once with npm start, or set DATABASE_URL)`,
    );
  }
  const state = await readJson(path.join(settings.dataDir, EMBEDDED_STATE_FILE));
  const port =
    settings.embeddedPostgresPort ?? (typeof state?.port === "number" ? state.port : undefined);
  const url = (p: number) =>
    `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${p}/${EMBEDDED_DATABASE}`;
  if (port !== undefined && (await accepts(url(port)))) {
    const database = createDatabase(url(port), options);
    return {
      database,
      where: `the running embedded PostgreSQL on 127.0.0.1:${port}`,
      close: () => database.close(),
    };
  }
  const server: EmbeddedPostgresHandle = await startEmbeddedPostgres({
    dataDir: settings.dataDir,
    password,
    port,
  });
  const database = createDatabase(server.url, options);
  return {
    database,
    where: `the embedded PostgreSQL of ${settings.dataDir}`,
    close: async () => {
      await database.close();
      await server.stop();
    },
  };
}
