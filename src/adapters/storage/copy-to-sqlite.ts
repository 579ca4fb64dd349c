import {
  BATCH,
  type Client,
  compareDerived,
  type CopiedTable,
  DERIVED,
  foreignKeyOrder,
  MIGRATOR,
  SchemaMismatchError,
  targetColumns,
  TargetNotEmptyError,
} from './copy-to-postgres.ts';
import { COUNT_NODES_SQL, WATCH_APPLICATION_NAME } from '../jobs/pg-inbox-claims.ts';
import type { PostgresDb } from './database.ts';
import { refuseWhileRunning } from './key-rotation.ts';
import type { SqliteDb } from './sqlite/open-sqlite.ts';

/** PostgreSQL's type ids of the values the schema holds: `bigint` (as a string from `pg`), `integer`, `text`. */
const INT8 = 20;
const KNOWN_TYPES: ReadonlySet<number> = new Set([INT8, 23, 25, 1043]);

/**
 * Copies every row of a PostgreSQL database into an empty SQLite database, both migrated to the same version — the
 * way back from several instances to one (decision 0152), the reverse of `copySqliteToPostgres`. The rows are read
 * from one snapshot (a REPEATABLE READ, READ ONLY transaction, through a cursor, a batch at a time) and written in
 * one SQLite transaction: a failure part-way leaves the file as empty as it was. Tables in the order their foreign
 * keys need; the derived folder counts made again by SQLite's triggers and compared; each table's count checked
 * after. Values are copied as stored — sealed credentials stay sealed under the same key, hashes stay hashes; a
 * `bigint` goes in as an integer, exactly.
 */
export async function copyPostgresToSqlite(source: PostgresDb, target: SqliteDb): Promise<CopiedTable[]> {
  const sqlite = target.sqlite;
  const targetTables = new Map(
    (
      sqlite
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .all() as { name: string }[]
    )
      .filter((t) => !MIGRATOR.test(t.name))
      .map((t) => [
        t.name,
        (sqlite.prepare(`PRAGMA table_info("${t.name}")`).all() as { name: string }[]).map((c) => c.name),
      ]),
  );
  return source.unbounded(async (db) => {
    const client = await db.pool.connect();
    try {
      const columns = await targetColumns(client);
      for (const [table, have] of columns) {
        const want = targetTables.get(table);
        const missing = want === undefined ? have : have.filter((c) => !want.includes(c));
        if (missing.length > 0)
          throw new SchemaMismatchError(
            `${table}: ${missing.join(', ')} not in the SQLite database; run both on the same version`,
          );
      }
      for (const table of targetTables.keys()) {
        const { any } = sqlite.prepare(`SELECT EXISTS (SELECT 1 FROM "${table}") AS any`).get() as {
          any: number;
        };
        if (any === 1)
          throw new TargetNotEmptyError(
            `the SQLite database already holds data (${table}): copy into a new, empty one`,
          );
      }
      // A node still running would go on writing after the snapshot: what it wrote would be lost.
      const { rows } = await client.query<{ n: string }>(COUNT_NODES_SQL, [WATCH_APPLICATION_NAME]);
      refuseWhileRunning(Number(rows[0]?.n ?? 0), 'then copy');
      const order = await foreignKeyOrder(client, [...columns.keys()]);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      sqlite.exec('BEGIN IMMEDIATE');
      try {
        const copied: CopiedTable[] = [];
        for (const table of order)
          if (!DERIVED.has(table)) copied.push({ table, rows: await copyTable(client, target, table) });
        for (const table of DERIVED) await compareDerived(target, client, table, 'SQLite');
        for (const { table, rows } of copied) {
          const counted = sqlite.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number };
          if (counted.n !== rows)
            throw new Error(`${table}: ${String(rows)} rows copied, ${String(counted.n)} found`);
        }
        sqlite.exec('COMMIT');
        return copied;
      } catch (e) {
        sqlite.exec('ROLLBACK');
        throw e;
      } finally {
        await client.query('ROLLBACK');
      }
    } finally {
      client.release();
    }
  });
}

/** Every row of one table, through a cursor, a batch at a time; how many. */
async function copyTable(client: Client, target: SqliteDb, table: string): Promise<number> {
  let rows = 0;
  let insert: ReturnType<SqliteDb['sqlite']['prepare']> | undefined;
  await client.query(`DECLARE rows_out NO SCROLL CURSOR FOR SELECT * FROM "${table}"`);
  try {
    for (;;) {
      const batch = await client.query<Record<string, unknown>>(`FETCH ${String(BATCH)} FROM rows_out`);
      if (batch.rows.length === 0) break;
      const odd = batch.fields.find((f) => !KNOWN_TYPES.has(f.dataTypeID));
      if (odd !== undefined)
        throw new SchemaMismatchError(
          `${table}.${odd.name}: a column type the SQLite database does not hold`,
        );
      const names = batch.fields.map((f) => f.name);
      const int8 = batch.fields.filter((f) => f.dataTypeID === INT8).map((f) => f.name);
      insert ??= target.sqlite.prepare(
        `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      );
      for (const row of batch.rows) {
        for (const name of int8) {
          const v = row[name];
          if (typeof v === 'string') row[name] = BigInt(v);
        }
        insert.run(names.map((n) => row[n]));
      }
      rows += batch.rows.length;
    }
  } finally {
    await client.query('CLOSE rows_out');
  }
  return rows;
}
