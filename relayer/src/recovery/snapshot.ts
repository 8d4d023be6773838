/**
 * The database's rows in a backup, and back (docs/recovery.md).
 *
 * A snapshot is one `REPEATABLE READ, READ ONLY` transaction over every table of the `public`
 * schema: each row as PostgreSQL's own JSON text (`row_to_json`, so no value passes through a
 * JavaScript number), the sequences' values, and the migrations applied. Restoring inserts the
 * rows with `json_populate_recordset` in foreign-key order, in one transaction, then sets the
 * sequences: an interrupted restore leaves nothing, and can be run again.
 *
 * Payload layout (one item per line): `{"table":…,"columns":[…],"rows":N}` followed by N row
 * lines, for each table; then `{"sequences":[…]}`; then `{"end":true}`.
 */
import type pg from "pg";
import { ConfigError } from "../errors.js";

/** Rows fetched per round trip while reading, and inserted per statement while restoring. */
const BATCH = 2_000;

export interface TableCount {
  name: string;
  rows: number;
}

export interface Snapshot {
  payload: Buffer;
  tables: TableCount[];
  migrations: { count: number; lastHash: string | null };
}

interface Column {
  name: string;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}

/** The `public` tables, parents before the tables that reference them. */
export async function tablesInOrder(client: pg.ClientBase): Promise<string[]> {
  const tables = (
    await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    )
  ).rows.map((row) => row.name);
  const edges = (
    await client.query<{ child: string; parent: string }>(
      `SELECT c.relname AS child, p.relname AS parent
         FROM pg_constraint k
         JOIN pg_class c ON c.oid = k.conrelid
         JOIN pg_class p ON p.oid = k.confrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE k.contype = 'f' AND n.nspname = 'public' AND c.relname <> p.relname`,
    )
  ).rows;
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visit = (table: string, path: string[]) => {
    if (placed.has(table)) return;
    if (path.includes(table))
      throw new Error(`foreign keys form a cycle: ${[...path, table].join(" -> ")}`);
    for (const edge of edges) if (edge.child === table) visit(edge.parent, [...path, table]);
    placed.add(table);
    ordered.push(table);
  };
  for (const table of tables) visit(table, []);
  return ordered;
}

async function columnsOf(client: pg.ClientBase, table: string): Promise<Column[]> {
  return (
    await client.query<Column>(
      `SELECT column_name AS name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER'
        ORDER BY ordinal_position`,
      [table],
    )
  ).rows;
}

/** The migrations applied (drizzle's journal table), as a backup records them. */
export async function appliedMigrations(
  client: pg.ClientBase,
): Promise<{ count: number; lastHash: string | null }> {
  const exists = await client.query(`SELECT to_regclass('drizzle.__drizzle_migrations') AS t`);
  if ((exists.rows[0] as { t: string | null }).t === null) return { count: 0, lastHash: null };
  const rows = (
    await client.query<{ hash: string }>(
      `SELECT hash FROM drizzle.__drizzle_migrations ORDER BY id`,
    )
  ).rows;
  return { count: rows.length, lastHash: rows.at(-1)?.hash ?? null };
}

/**
 * Reads every table in one consistent snapshot. `progress` is told each table's row count as it
 * is read.
 */
export async function takeSnapshot(
  client: pg.ClientBase,
  progress: (table: string, rows: number) => void,
): Promise<Snapshot> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
  try {
    const migrations = await appliedMigrations(client);
    const parts: Buffer[] = [];
    const tables: TableCount[] = [];
    for (const table of await tablesInOrder(client)) {
      const columns = (await columnsOf(client, table)).map((column) => column.name);
      const list = columns.map(quote).join(", ");
      await client.query(
        `DECLARE backup_rows NO SCROLL CURSOR FOR SELECT row_to_json(r)::text AS j FROM (SELECT ${list} FROM ${quote(table)}) r`,
      );
      const rows: string[] = [];
      for (;;) {
        const batch = await client.query<{ j: string }>(`FETCH ${BATCH} FROM backup_rows`);
        for (const row of batch.rows) rows.push(row.j);
        if (batch.rows.length < BATCH) break;
      }
      await client.query("CLOSE backup_rows");
      parts.push(Buffer.from(`${JSON.stringify({ table, columns, rows: rows.length })}\n`));
      if (rows.length > 0) parts.push(Buffer.from(`${rows.join("\n")}\n`));
      tables.push({ name: table, rows: rows.length });
      progress(table, rows.length);
    }
    const sequences = (
      await client.query<{ name: string; value: string | null }>(
        `SELECT sequencename AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public'`,
      )
    ).rows;
    parts.push(Buffer.from(`${JSON.stringify({ sequences })}\n${JSON.stringify({ end: true })}\n`));
    return { payload: Buffer.concat(parts), tables, migrations };
  } finally {
    await client.query("ROLLBACK");
  }
}

/**
 * Rows the migrations themselves write (relayer/src/db/migrations): not data a restore would
 * write over. The audit log's chain head starts at its genesis row.
 */
const SEEDED: Record<string, string> = { audit_chain_head: "last_id = 0" };

/**
 * The `public` tables holding rows, with their counts, leaving out what the migrations seed (a
 * restore refuses a database with data).
 */
export async function countRows(client: pg.ClientBase): Promise<TableCount[]> {
  const counts: TableCount[] = [];
  for (const table of await tablesInOrder(client)) {
    const seeded = SEEDED[table];
    const result = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM ${quote(table)}` +
        (seeded === undefined ? "" : ` WHERE NOT (${seeded})`),
    );
    const rows = Number(result.rows[0]?.n ?? 0);
    if (rows > 0) counts.push({ name: table, rows });
  }
  return counts;
}

/**
 * Writes a snapshot's rows into `client`'s database, in one transaction, after emptying every
 * table (the migrations' seeds, or with `--force` what was there) in the same transaction.
 * `progress` is told each table's rows.
 */
export async function restoreSnapshot(
  client: pg.ClientBase,
  payload: Buffer,
  options: {
    progress: (table: string, rows: number) => void;
    /** Run in the restore's transaction, after the rows and before the commit. */
    finish?: (client: pg.ClientBase) => Promise<void>;
  },
): Promise<TableCount[]> {
  const lines = payload.toString("utf8").split("\n");
  let at = 0;
  const next = () => {
    if (at >= lines.length) throw new ConfigError("The backup's payload ends early");
    return lines[at++]!;
  };
  const restored: TableCount[] = [];
  await client.query("BEGIN");
  try {
    const present = new Set(await tablesInOrder(client));
    if (present.size > 0) {
      await client.query(`TRUNCATE ${[...present].map(quote).join(", ")} RESTART IDENTITY CASCADE`);
    }
    for (;;) {
      const item = JSON.parse(next()) as
        | { table: string; columns: string[]; rows: number }
        | { sequences: Array<{ name: string; value: string | null }> }
        | { end: true };
      if ("end" in item) break;
      if ("sequences" in item) {
        for (const sequence of item.sequences) {
          if (sequence.value === null) continue;
          await client.query(`SELECT setval($1::regclass, $2::bigint, true)`, [
            quote(sequence.name),
            sequence.value,
          ]);
        }
        continue;
      }
      if (!present.has(item.table)) {
        throw new ConfigError(
          `The backup holds table ${item.table}, which this database does not have`,
        );
      }
      const list = item.columns.map(quote).join(", ");
      for (let done = 0; done < item.rows; ) {
        const take = Math.min(BATCH, item.rows - done);
        const rows: string[] = [];
        for (let i = 0; i < take; i++) rows.push(next());
        await client.query(
          `INSERT INTO ${quote(item.table)} (${list}) OVERRIDING SYSTEM VALUE
           SELECT ${list} FROM json_populate_recordset(NULL::${quote(item.table)}, $1::json)`,
          [`[${rows.join(",")}]`],
        );
        done += take;
      }
      restored.push({ name: item.table, rows: item.rows });
      options.progress(item.table, item.rows);
    }
    await options.finish?.(client);
    await client.query("COMMIT");
    return restored;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
