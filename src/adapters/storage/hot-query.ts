import type { Compilable, CompiledQuery } from 'kysely';
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Db } from './database.ts';

const MARK = '\u0000hot:';

/** Stands for the named value of type `V[K]` when the query is compiled once (a marker string at run time). */
export type Param<V> = <K extends keyof V & string>(name: K) => V[K];

export class HotQueryError extends Error {
  override readonly name = 'HotQueryError';
}

/**
 * Builds and compiles a query once, then executes the compiled SQL with fresh values. Kysely compiles a query
 * builder on every call, which costs more than running a small indexed query on SQLite (measured: a two-table
 * lookup 69 µs compiled each time, ~12 µs precompiled). Use it only on hot paths, with `p(name)` standing in for
 * every value that varies: a value written without it would be frozen into the statement, so compiling refuses
 * any parameter that is not a `p(name)` (write a constant as `sql.lit`).
 *
 * SQLite (3.54) re-prepares a statement on every run, costing 5–40 µs, when a bound parameter appears as
 * `column = ?` in a statement that also has ORDER BY or GROUP BY, or when LIMIT is a bound parameter: the query
 * planner looked at the value, so binding a new one expires the plan. Hot queries therefore write such
 * equalities as `column in (?)` (same meaning and the same index use, without the dependency), and leave out
 * LIMITs they do not need. `bench/sqlite-reprepare.ts` shows the effect.
 */
export function hotQuery<O, V extends Record<string, unknown>>(
  db: Db,
  build: (p: Param<V>) => Compilable<O>,
): (values: V) => Promise<O[]> {
  const marker = ((name: string) => `${MARK}${name}`) as Param<V>;
  const statement = hotStatement<O>(db, build(marker).compile());
  const slots = statement.compiled.parameters.map((v) => {
    if (typeof v !== 'string' || !v.startsWith(MARK))
      throw new HotQueryError(
        `hotQuery: parameter ${JSON.stringify(v)} is not a p(name); it would never change`,
      );
    return v.slice(MARK.length);
  });
  return (values) => statement.run(slots.map((slot) => values[slot]));
}

/**
 * A multi-row statement (an INSERT of n rows) whose values are all parameters, row after row in the order of the
 * first row's keys (rows come from one row-mapping function, so they share them): its SQL depends only on the row
 * count, so it is built and compiled once per count rather than for every batch (Kysely rebuilds a 250-row,
 * 22-column statement each time otherwise). One statement, so a batch goes in whole or not at all.
 *
 * (Splitting batches into power-of-two slices, so that a few statements serve every size, was tried and undone:
 * six statements for a 250-row message chunk made a 10,000-message upsert ~15% slower.)
 */
export function hotBatch<R extends object>(
  db: Db,
  build: (rows: readonly R[]) => Compilable,
): (rows: readonly R[]) => Promise<void> {
  const bySize = new Map<number, HotStatement>();
  let columns: readonly (keyof R)[] | undefined;
  return async (rows) => {
    const [first] = rows;
    if (first === undefined) return;
    const cols = (columns ??= Object.keys(first) as (keyof R)[]);
    let statement = bySize.get(rows.length);
    if (statement === undefined) {
      const compiled = build(rows).compile();
      if (compiled.parameters.length !== rows.length * cols.length)
        throw new HotQueryError('hotBatch: the statement does not take one parameter per column and row');
      if (bySize.size >= 64) bySize.clear();
      statement = hotStatement(db, compiled);
      bySize.set(rows.length, statement);
    }
    await statement.run(rows.flatMap((r) => cols.map((c) => r[c])));
  };
}

interface HotStatement<O = unknown> {
  readonly compiled: CompiledQuery<O>;
  run(parameters: readonly unknown[]): Promise<O[]>;
}

/** At most this many statement texts get a name in one process; later ones are sent unnamed (see `namedStatement`). */
const MAX_NAMED = 200;
let named = 0;
let generation = 0;

/**
 * On PostgreSQL, a hot statement is prepared once on each pooled connection and then only bound and executed: sent
 * unnamed, the server parses, analyses and plans it on every run, which for the joined listing read cost ~500 µs of
 * its ~780 µs round trip on loopback (decision 0047). Names are bounded per process, so the prepared statements a
 * connection keeps are too.
 *
 * A prepared statement remembers its result's columns: when a migration run by another node changes a table it reads
 * (`select *`), the server refuses it ("cached plan must not change result type", 0A000). It is then prepared
 * again under a new name, once.
 */
function namedStatement<O>(
  pool: pg.Pool,
  text: string,
): ((parameters: readonly unknown[]) => Promise<O[]>) | undefined {
  if (named >= MAX_NAMED) return undefined;
  named++;
  const base = `hot_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
  let name = `${base}_${String(generation)}`;
  return async (parameters) => {
    try {
      return (await pool.query({ name, text, values: [...parameters] })).rows as O[];
    } catch (e) {
      if (!isStalePlan(e)) throw e;
      name = `${base}_${String(++generation)}`;
      return (await pool.query({ name, text, values: [...parameters] })).rows as O[];
    }
  };
}

const isStalePlan = (e: unknown) => typeof e === 'object' && e !== null && 'code' in e && e.code === '0A000';

/**
 * Runs one compiled statement with fresh parameters. On SQLite, which runs in this thread, it is one synchronous
 * call on a statement prepared once (`SqliteDb.statement`, which also joins or ends the turn's snapshot); Kysely's
 * driver would add a connection mutex and a dozen promise hops around it (~7 µs a query under load). While a
 * transaction of Kysely's is open a statement run directly would join it, so then it waits its turn through Kysely.
 * On PostgreSQL it is a named statement (`namedStatement`), or goes through Kysely past the bound on names.
 */
function hotStatement<O>(db: Db, compiled: CompiledQuery<O>): HotStatement<O> {
  const viaKysely = async (parameters: readonly unknown[]) =>
    (await db.kysely.executeQuery<O>({ ...compiled, parameters })).rows;
  if (db.dialect === 'postgres')
    return { compiled, run: namedStatement<O>(db.pool, compiled.sql) ?? viaKysely };
  const { sqlite, snapshot, statement } = db;
  return {
    compiled,
    run(parameters) {
      // A transaction of Kysely's is open: joining it would tie this statement to its fate.
      if (sqlite.inTransaction && !snapshot.isOpen) return viaKysely(parameters);
      try {
        const prepared = statement(compiled.sql);
        if (prepared.reader) return Promise.resolve(prepared.all(parameters) as O[]);
        prepared.run(parameters);
        return Promise.resolve([]);
      } catch (e) {
        return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      }
    },
  };
}
