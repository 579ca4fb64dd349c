import type pg from 'pg';
import type { PostgresDb } from './database.ts';
import type { SqliteDb } from './sqlite/open-sqlite.ts';

/** The target already holds data: copying into it would mix two services' accounts. Nothing was written. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
}

/** The two databases' schemas differ (not both at the same migration): nothing was written. */
export class SchemaMismatchError extends Error {
  override readonly name = 'SchemaMismatchError';
}

export interface CopiedTable {
  readonly table: string;
  readonly rows: number;
}

/** Rows per INSERT: well below PostgreSQL's 65,535 parameters for the widest table. */
export const BATCH = 500;
/** The migrator's own tables: each database keeps its own record of the migrations it ran. */
export const MIGRATOR = /^schema_migrations/;
/**
 * Tables the database writes itself, by triggers, as the rows they count are copied (decision 0018's folder counts):
 * not copied, compared after.
 */
export const DERIVED: ReadonlySet<string> = new Set(['folder_counts']);

/**
 * Copies every row of a SQLite database into an empty PostgreSQL database, both migrated to the same version
 * (decision 0140), in one PostgreSQL transaction: a failure part-way leaves the target as empty as it was. Tables in
 * the order their foreign keys need; the serial ids' sequences moved past the copied ids; each table's count checked
 * after. Values are copied as stored — sealed credentials stay sealed under the same key, hashes stay hashes.
 */
export async function copySqliteToPostgres(source: SqliteDb, target: PostgresDb): Promise<CopiedTable[]> {
  const sourceTables = (
    source.sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[]
  )
    .map((t) => t.name)
    .filter((t) => !MIGRATOR.test(t));
  return target.unbounded(async (db) => {
    const client = await db.pool.connect();
    try {
      const columns = await targetColumns(client);
      for (const table of sourceTables) {
        const want = columns.get(table);
        const have = (source.sqlite.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map(
          (c) => c.name,
        );
        const missing = want === undefined ? have : have.filter((c) => !want.includes(c));
        if (missing.length > 0)
          throw new SchemaMismatchError(
            `${table}: ${missing.join(', ')} not in the PostgreSQL database; run both on the same version`,
          );
      }
      const order = await foreignKeyOrder(client, sourceTables);
      await client.query('BEGIN');
      try {
        for (const table of columns.keys()) {
          const { rows } = await client.query<{ any: boolean }>(
            `SELECT EXISTS (SELECT 1 FROM "${table}") AS any`,
          );
          if (rows[0]?.any === true)
            throw new TargetNotEmptyError(
              `the PostgreSQL database already holds data (${table}): copy into a new, empty database`,
            );
        }
        const copied: CopiedTable[] = [];
        for (const table of order)
          if (!DERIVED.has(table)) copied.push({ table, rows: await copyTable(source, client, table) });
        await moveSequences(client);
        for (const table of DERIVED) await compareDerived(source, client, table, 'PostgreSQL');
        for (const { table, rows } of copied) {
          const counted = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
          if (Number(counted.rows[0]?.n) !== rows)
            throw new Error(`${table}: ${String(rows)} rows copied, ${String(counted.rows[0]?.n)} found`);
        }
        await client.query('COMMIT');
        return copied;
      } catch (e) {
        await client.query('ROLLBACK');
        throw e;
      }
    } finally {
      client.release();
    }
  });
}

export type Client = pg.PoolClient;

/** The PostgreSQL database's tables (the migrator's aside) with their columns. */
export async function targetColumns(client: Client): Promise<Map<string, string[]>> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
  );
  const out = new Map<string, string[]>();
  for (const r of rows)
    if (!MIGRATOR.test(r.table_name))
      out.set(r.table_name, [...(out.get(r.table_name) ?? []), r.column_name]);
  return out;
}

/** `tables` ordered so that each comes after the tables its foreign keys name. */
export async function foreignKeyOrder(client: Client, tables: readonly string[]): Promise<string[]> {
  const { rows } = await client.query<{ child: string; parent: string }>(
    `SELECT DISTINCT tc.table_name AS child, ccu.table_name AS parent
       FROM information_schema.table_constraints tc
       JOIN information_schema.constraint_column_usage ccu
         ON ccu.constraint_name = tc.constraint_name AND ccu.constraint_schema = tc.constraint_schema
      WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`,
  );
  const parents = new Map<string, string[]>();
  for (const r of rows)
    if (r.child !== r.parent) parents.set(r.child, [...(parents.get(r.child) ?? []), r.parent]);
  const placed = new Set<string>();
  const order: string[] = [];
  const place = (table: string, path: readonly string[]): void => {
    if (placed.has(table)) return;
    if (path.includes(table)) throw new SchemaMismatchError(`foreign keys form a cycle: ${path.join(' → ')}`);
    for (const parent of parents.get(table) ?? [])
      if (tables.includes(parent)) place(parent, [...path, table]);
    placed.add(table);
    order.push(table);
  };
  for (const table of tables) place(table, []);
  return order;
}

/** Every row of one table, in batches, in the order SQLite stores them; how many. */
async function copyTable(source: SqliteDb, client: Client, table: string): Promise<number> {
  const read = source.sqlite.prepare(`SELECT * FROM "${table}"`);
  let batch: Record<string, unknown>[] = [];
  let rows = 0;
  const flush = async () => {
    const first = batch[0];
    if (first === undefined) return;
    const names = Object.keys(first);
    const values: unknown[] = [];
    const tuples = batch.map((row) => {
      const marks = names.map((n) => {
        values.push(row[n]);
        return `$${String(values.length)}`;
      });
      return `(${marks.join(', ')})`;
    });
    await client.query(
      `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES ${tuples.join(', ')}`,
      values,
    );
    rows += batch.length;
    batch = [];
  };
  for (const row of read.iterate() as IterableIterator<Record<string, unknown>>) {
    batch.push(row);
    if (batch.length === BATCH) await flush();
  }
  await flush();
  return rows;
}

/** Each serial column's sequence moved past the largest id copied, so the next row gets a new one. */
async function moveSequences(client: Client): Promise<void> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
  );
  for (const { table_name: table, column_name: column } of rows)
    await client.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT max("${column}") FROM "${table}"), 0) + 1, false)`,
      [table, column],
    );
}

/**
 * A table the triggers made again in the target (`remadeIn`) holds what the source's holds: the same rows, whatever
 * their order.
 */
export async function compareDerived(
  sqlite: SqliteDb,
  client: Client,
  table: string,
  remadeIn: 'PostgreSQL' | 'SQLite',
): Promise<void> {
  const query = `SELECT * FROM "${table}"`;
  // As text on both sides: PostgreSQL's bigint arrives as a string, SQLite's integers as numbers.
  const rows = (list: readonly Record<string, unknown>[]) =>
    JSON.stringify(list.map((r) => JSON.stringify(Object.values(r).map(String))).sort());
  const inSqlite = rows(sqlite.sqlite.prepare(query).all() as Record<string, unknown>[]);
  if (rows((await client.query<Record<string, unknown>>(query)).rows) !== inSqlite)
    throw new Error(
      `${table} does not come out as in the ${remadeIn === 'PostgreSQL' ? 'SQLite' : 'PostgreSQL'} database`,
    );
}
