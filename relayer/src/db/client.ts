import { sql, type SQL, type SQLChunk } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema/index.js";

export type Schema = typeof schema;
export type Db = NodePgDatabase<Schema>;
/** A Drizzle transaction on `Db` (what `db.transaction` hands its callback). */
export type DbTransaction = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  pool: pg.Pool;
  db: Db;
  /** SQL statements sent on this pool so far (BEGIN and COMMIT count): the bench's cost figure. */
  statements(): number;
  /**
   * Opens the pool's connections now (all of them by default), so that a burst of requests after
   * a quiet start does not wait for new backends: with 9 of 20 open, the first second of a burst
   * had up to 11 requests waiting for a connection being opened (issue 45).
   */
  warm(count?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a connection pool and a Drizzle handle on it.
 *
 * Pool errors on idle clients (e.g. the server restarting, 57P01) are reported to `onError`
 * instead of crashing the process; errors on checked-out clients never crash it either. Queries
 * in flight fail and callers map them to 503.
 *
 * @example
 * const database = createDatabase(config.databaseUrl);
 * await database.db.select().from(schema.orgs);
 */
export function createDatabase(
  url: string,
  options: { max?: number; onError?: (err: Error) => void; applicationName?: string } = {},
): Database {
  const max = options.max ?? 20;
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A connection once opened stays open (docs/scaling.md counts `max` per process anyway). With
    // idle ones closed after 30 s, an API process that had been quiet for half a minute opened
    // a connection for each of the first requests after it: a new backend, its catalog caches
    // and every named statement prepared again. The bench's split phase, whose API process sits
    // idle while the phase before drains, had its 202's server-side p99 in the 500-750 ms bucket;
    // with connections kept, 100-250 ms. (A process running the engine keeps its own warm.)
    min: max,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: options.applicationName ?? "rwa-relayer",
  });
  pool.on("error", (err) => options.onError?.(err));
  // The pool listens for errors only on idle clients. A checked-out client that sits between
  // queries (a transaction awaiting a chain call, a held advisory lock) when the server ends its
  // connection would emit an unhandled 'error' and crash the process. The error reaches the
  // caller through its next query on that client, and the pool drops the client on release.
  let statements = 0;
  // Clients not yet fully closed: `pool.end()` resolves once it has asked its idle clients to end,
  // not once they have, and a server stopped in between ends them itself with an error (57P01).
  const open = new Set<pg.PoolClient>();
  let drained: (() => void) | undefined;
  pool.on("remove", (client) => {
    open.delete(client);
    if (open.size === 0) drained?.();
  });
  pool.on("connect", (client) => {
    open.add(client);
    client.on("error", () => {});
    // Every statement of the pool goes through a client's query (pool.query included): count it.
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements++;
      return query(...args);
    };
  });
  const db = drizzle(pool, { schema });
  let closed = false;
  return {
    pool,
    db,
    statements: () => statements,
    async warm(count = max) {
      const clients = await Promise.all(
        Array.from({ length: Math.min(count, max) }, () => pool.connect()),
      );
      for (const client of clients) client.release();
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
      if (open.size === 0) return;
      // Every connection's Terminate reaches the server before the caller may stop it; a socket
      // that never closes does not hold the stop for more than 2 s.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}

/**
 * Runs `work` in one database transaction on one pooled connection: COMMIT when it resolves,
 * ROLLBACK (best effort) and rethrow when it throws; the connection always goes back to the pool.
 *
 * @example
 * await inTransaction(database, async (client) => {
 *   await client.query("UPDATE ...", [...]);
 *   await client.query("INSERT ...", [...]);
 * });
 */
export async function inTransaction<T>(
  database: Database,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await database.pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Runs `statement` (one statement, so atomic: a refused one wrote nothing) again when PostgreSQL
 * ended it to break a deadlock (SQLSTATE 40P01), at most `attempts` times in all. Statements that
 * lock rows of several wallets at once (a batch of rounds, a batch of recorded writes) can meet
 * in a cycle with others that lock them in another order (lease claims, renewals and releases
 * lock several wallets too); the retry is what a caller would do.
 */
export async function retryOnDeadlock<T>(statement: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if ((error as { code?: unknown }).code !== "40P01" || attempt >= attempts) throw error;
    }
  }
}

/**
 * Runs `statement` once for the whole `group`; when PostgreSQL refuses it for its data (SQLSTATE
 * class 22 or 23: a bug in one item, not an outage) runs it again for each item alone, so one bad
 * item fails alone. Any other error fails the whole group (it is thrown).
 *
 * @returns for each item, the answer of the statement that covered it, or its own error
 */
export async function eachAloneOnDataError<I, R>(
  group: readonly I[],
  statement: (items: readonly I[]) => Promise<R>,
): Promise<Array<R | Error>> {
  try {
    const answer = await statement(group);
    return group.map(() => answer);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const dataError = typeof code === "string" && /^2[23]/.test(code);
    if (!dataError || group.length === 1) throw error;
    const answers: Array<R | Error> = [];
    for (const item of group)
      answers.push(
        await statement([item]).catch((e: unknown) =>
          e instanceof Error ? e : new Error(String(e)),
        ),
      );
    return answers;
  }
}

/**
 * A parameterised statement (`$1`, `$2`, ... in `text`) as Drizzle's `SQL`, to run it on a Drizzle
 * transaction (`tx.execute`) as `pool.query(text, params)` runs it on the pool.
 */
export function withParams(text: string, params: readonly unknown[]): SQL {
  const chunks: SQLChunk[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, match.index)), sql.param(params[Number(match[1]) - 1]));
    last = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.fromList(chunks);
}
