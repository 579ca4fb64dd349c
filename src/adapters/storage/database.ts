import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { SqliteFileAuditLog } from './audit-file.ts';
import { isPlainRead, TurnSnapshot } from './turn-snapshot.ts';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /** The raw pool, for adapters that bring their own SQL (the PostgreSQL rate-limit store). */
  readonly pgPool?: pg.Pool;
  /** The SQLite handle itself, for statements run without Kysely's per-query overhead (`hot-query.ts`). */
  readonly sqlite?: BetterSqlite3.Database;
  /** SQLite: the read transaction this turn's reads share (turn-snapshot.ts). */
  readonly snapshot?: TurnSnapshot;
  /**
   * SQLite: the prepared statement for `sql`, from the cache Kysely uses too, with this turn's snapshot joined
   * (a plain read) or ended (anything else). Call it right before running the statement.
   */
  readonly statement?: (sql: string) => BetterSqlite3.Statement;
  /** File-backed SQLite: the audit log, in a file of its own written by a worker thread (audit-file.ts). */
  readonly auditFile?: SqliteFileAuditLog;
  /**
   * File-backed SQLite only: checkpoint the WAL from a worker thread from now on (wal-checkpointer.ts). The
   * running service starts it with its background work; `close()` stops it.
   */
  readonly checkpointInBackground?: (onError?: (e: Error) => void) => WalCheckpointer;
  close(): Promise<void>;
}

export type DbTarget =
  { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; poolSize?: number };

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Opens the database the config names. SQLite: WAL, a busy timeout and foreign keys on every connection. */
export function openDatabase(target: DbTarget): Db {
  if (target.kind === 'sqlite') {
    if (target.path !== ':memory:') mkdirSync(dirname(target.path), { recursive: true, mode: 0o700 });
    const sqlite = new BetterSqlite3(target.path);
    // Mail metadata is personal data: owner-only, like the key file beside it (WAL/SHM files inherit this).
    if (target.path !== ':memory:') chmodSync(target.path, 0o600);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    const snapshot = new TurnSnapshot(sqlite);
    const statement = cachedStatements(sqlite, snapshot);
    const kysely = new Kysely<Database>({
      dialect: new SqliteDialect({ database: preparingFrom(sqlite, statement) }),
    });
    let checkpointer: WalCheckpointer | undefined;
    const auditFile = target.path === ':memory:' ? undefined : new SqliteFileAuditLog(target.path);
    return {
      kysely,
      dialect: 'sqlite',
      sqlite,
      snapshot,
      statement,
      ...(auditFile !== undefined && { auditFile }),
      ...(target.path !== ':memory:' && {
        checkpointInBackground: (onError?: (e: Error) => void) =>
          (checkpointer ??= startWalCheckpointer(sqlite, target.path, { ...(onError && { onError }) })),
      }),
      close: async () => {
        await checkpointer?.stop();
        await auditFile?.close();
        snapshot.end();
        await kysely.destroy();
      },
    };
  }
  // Epoch-millisecond columns are bigint; they fit a JS number exactly until the year 287396.
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, Number);
  types.setTypeParser(NUMERIC_OID, Number);
  const pool = new pg.Pool({ connectionString: target.url, max: target.poolSize ?? 10, types });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { kysely, dialect: 'postgres', pgPool: pool, close: () => kysely.destroy() };
}

/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running most of our queries
 * (measured: ~12% of a request). Statements are keyed by their SQL text, which Kysely emits with placeholders,
 * so the cache holds one entry per query shape. Bounded in case some caller builds SQL with inlined values.
 * Every statement is asked for right before it runs, so this is also where reads join the turn's snapshot and
 * everything else (Kysely's BEGIN included) ends it first.
 */
function cachedStatements(
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

/** The handle as Kysely's driver sees it: its `prepare` is `statement`. */
function preparingFrom(
  db: BetterSqlite3.Database,
  statement: (sql: string) => BetterSqlite3.Statement,
): BetterSqlite3.Database {
  return new Proxy(db, {
    get(target, prop, receiver) {
      return prop === 'prepare' ? statement : (Reflect.get(target, prop, receiver) as unknown);
    },
  });
}
