import type pg from "pg";
import type { Database } from "../db/client.js";

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
export async function coalescedRead<T>(
  database: Database,
  key: string,
  read: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  // A look-up of one key: identical reads are the look-ups of one batch.
  const result = await coalescedLookup(
    database,
    `read:${key}`,
    "",
    async (client) => new Map([["", await read(client)]]),
  );
  return result as T;
}

/** Batched look-ups waiting for a pool connection, by statement name, per pool. */
const openBatches = new WeakMap<
  pg.Pool,
  Map<string, { keys: string[]; answers: Promise<ReadonlyMap<string, unknown>> }>
>();

/**
 * `coalescedRead` for look-ups by key: every look-up of the statement `name` that arrives while
 * the first is still waiting for a pool connection joins it, and one query answers all their
 * keys (`WHERE id = ANY($1)`). Under load, when connections are scarce, a batch grows instead of
 * the queue; it is closed the moment it gets its connection, so a look-up is never answered by
 * a query sent before it arrived.
 *
 * @param read runs the query for the distinct keys and answers by key (a key it lacks: `undefined`)
 * @example
 * const asset = await coalescedLookup(database, "assets-by-ids", "42", async (client, ids) =>
 *   new Map((await client.query({ name, text, values: [ids] })).rows.map((r) => [r.id, r])));
 */
export function coalescedLookup<T>(
  database: Database,
  name: string,
  key: string,
  read: (client: pg.PoolClient, keys: readonly string[]) => Promise<ReadonlyMap<string, T>>,
): Promise<T | undefined> {
  let byName = openBatches.get(database.pool);
  if (byName === undefined) {
    byName = new Map();
    openBatches.set(database.pool, byName);
  }
  let batch = byName.get(name);
  if (batch === undefined) {
    const keys: string[] = [];
    const pending = byName;
    const answers = (async () => {
      let client: pg.PoolClient;
      try {
        await new Promise((resolve) => setImmediate(resolve));
        client = await database.pool.connect();
      } finally {
        pending.delete(name); // sent from here on: later look-ups start a batch of their own
      }
      try {
        return await read(client, [...new Set(keys)]);
      } finally {
        client.release();
      }
    })();
    batch = { keys, answers };
    byName.set(name, batch);
  }
  batch.keys.push(key);
  return batch.answers.then((byKey) => byKey.get(key) as T | undefined);
}
