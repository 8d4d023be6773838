import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema/index.js";

export type Schema = typeof schema;
export type Db = NodePgDatabase<Schema>;

export interface Database {
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

/**
 * Opens a connection pool and a Drizzle handle on it.
 *
 * Pool errors on idle clients (e.g. the server restarting, 57P01) are reported to `onError`
 * instead of crashing the process; queries in flight fail and callers map them to 503.
 *
 * @example
 * const database = createDatabase(config.databaseUrl);
 * await database.db.select().from(schema.orgs);
 */
export function createDatabase(
  url: string,
  options: { max?: number; onError?: (err: Error) => void; applicationName?: string } = {},
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName ?? "rwa-relayer",
  });
  pool.on("error", (err) => options.onError?.(err));
  const db = drizzle(pool, { schema });
  let closed = false;
  return {
    pool,
    db,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
