import type BetterSqlite3 from 'better-sqlite3';
import { isPlainRead, type TurnSnapshot } from './turn-snapshot.ts';

/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running most of our queries
 * (measured: ~12% of a request). Statements are keyed by their SQL text, which Kysely emits with placeholders,
 * so the cache holds one entry per query shape. Bounded in case some caller builds SQL with inlined values.
 * Every statement is asked for right before it runs, so this is also where reads join the turn's snapshot and
 * everything else (Kysely's BEGIN included) ends it first.
 */
export function cachedStatements(
  db: BetterSqlite3.Database,
  snapshot: TurnSnapshot,
): (sql: string) => BetterSqlite3.Statement {
  const cache = new Map<string, { statement: BetterSqlite3.Statement; plainRead: boolean }>();
  return (sql) => {
    let entry = cache.get(sql);
    if (entry === undefined) {
      const statement = db.prepare(sql);
      entry = { statement, plainRead: isPlainRead(sql, statement) };
      if (cache.size >= 500) cache.clear();
      cache.set(sql, entry);
    }
    if (entry.plainRead) snapshot.beforeRead();
    else snapshot.end();
    return entry.statement;
  };
}

/**
 * The handle as Kysely's driver sees it: its `prepare` is `statement`. This relies on Kysely's SqliteDriver
 * calling `prepare` on the handle right before it runs each query — an internal of Kysely, pinned exactly in
 * package.json and guarded by kysely-canary.test.ts, which fails if a Kysely upgrade changes it.
 */
export function preparingFrom(
  db: BetterSqlite3.Database,
  statement: (sql: string) => BetterSqlite3.Statement,
): BetterSqlite3.Database {
  return new Proxy(db, {
    get(target, prop, receiver) {
      return prop === 'prepare' ? statement : (Reflect.get(target, prop, receiver) as unknown);
    },
  });
}
