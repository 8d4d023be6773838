import type pg from "pg";
import type { Database } from "../db/client.js";

/** Reads waiting for a pool connection, by key, per pool. */
const waiting = new WeakMap<pg.Pool, Map<string, Promise<unknown>>>();

/**
 * Runs `read` on a pooled connection, shared by every identical read (same `key`) that arrives
 * before it is sent: a burst of identical requests (every client polling the newest page) costs
 * one query and one result object instead of one each. The read starts on the event loop's next
 * turn (`setImmediate`), so the requests already received in this turn join it, and then as soon
 * as the pool has a connection for it.
 *
 * A read only joins one that has not yet been sent to PostgreSQL (it is still waiting for a
 * connection), so whatever it gets back was read after it arrived: a write answered before the
 * request came in is never hidden by a query that started earlier (docs/read-api.md). The shared
 * result must be treated as immutable by every caller.
 *
 * @param database the pool to read from
 * @param key what makes two reads identical (statement name and parameters)
 * @param read runs the query on the given connection and shapes the result
 * @returns the result of the one shared `read`
 * @example
 * const page = await coalescedRead(database, `assets-list:${JSON.stringify(values)}`, async (client) =>
 *   toPage((await client.query({ name, text, values })).rows));
 */
export function coalescedRead<T>(
  database: Database,
  key: string,
  read: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  let byKey = waiting.get(database.pool);
  if (byKey === undefined) {
    byKey = new Map();
    waiting.set(database.pool, byKey);
  }
  const joined = byKey.get(key) as Promise<T> | undefined;
  if (joined !== undefined) return joined;
  const pending = byKey;
  const shared = (async () => {
    let client: pg.PoolClient;
    try {
      await new Promise((resolve) => setImmediate(resolve));
      client = await database.pool.connect();
    } finally {
      // From here on the query is about to be sent: later arrivals start their own read.
      pending.delete(key);
    }
    try {
      return await read(client);
    } finally {
      client.release();
    }
  })();
  byKey.set(key, shared);
  return shared;
}
