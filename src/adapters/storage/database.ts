import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { LazyModule } from '../lazy-module.ts';

const pgModule = new LazyModule<typeof pg>('pg');
import type { Database } from './schema.ts';
import { withReadySessions } from './pg-peer-check.ts';
import { openSqlite, type SqliteDb } from './sqlite/open-sqlite.ts';

export { openSqlite, type SqliteDb } from './sqlite/open-sqlite.ts';

/** PostgreSQL, for several processes on one database: a pool, and plain Kysely. */
export interface PostgresDb {
  readonly dialect: 'postgres';
  readonly kysely: Kysely<Database>;
  /** The raw pool, for adapters that bring their own SQL (the PostgreSQL rate-limit store). */
  readonly pool: pg.Pool;
  /** The connection string it was opened with: for the sessions of their own the job queue, locks and claims open. */
  readonly url: string;
  /** How long one statement may wait for an answer before it fails and its connection is dropped; 0: unbounded. */
  readonly deadlineMs: number;
  /** The most connections the pool opens (DATABASE_POOL_SIZE). */
  readonly poolSize: number;
  /**
   * Runs `work` on a database of its own with no deadline, one session, closed after: for migrations, whose
   * statements may take minutes on a large database (decision 0063).
   */
  unbounded<T>(work: (db: PostgresDb) => Promise<T>): Promise<T>;
  /** Nothing runs in the background on PostgreSQL; here for symmetry with SQLite. */
  startBackground(onError: (e: Error) => void): void;
  close(): Promise<void>;
}

/** One schema on two engines (decision 0002); what differs is only what each engine needs to be fast. */
export type Db = SqliteDb | PostgresDb;
export type Dialect = Db['dialect'];

export type DbTarget =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string; poolSize?: number; deadlineMs?: number };

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Opens the database the config names. */
export function openDatabase(target: DbTarget): Db {
  return target.kind === 'sqlite'
    ? openSqlite(target.path)
    : openPostgres(target.url, { poolSize: target.poolSize, deadlineMs: target.deadlineMs });
}

/** Statements of the service's pools give up after this long unless told otherwise (DATABASE_QUERY_TIMEOUT_SECONDS). */
export const DEFAULT_DEADLINE_MS = 30_000;

export function openPostgres(
  url: string,
  o: { poolSize?: number | undefined; deadlineMs?: number | undefined } = {},
): PostgresDb {
  const deadlineMs = o.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const poolSize = o.poolSize ?? 10;
  // Epoch-millisecond columns are bigint; they fit a JS number exactly until the year 287396.
  const types = new (pgModule.load().TypeOverrides)();
  types.setTypeParser(INT8_OID, Number);
  types.setTypeParser(NUMERIC_OID, Number);
  const pool = new (pgModule.load().Pool)(
    withReadySessions({ connectionString: url, max: poolSize, types }, deadlineMs),
  );
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    kysely,
    pool,
    url,
    deadlineMs,
    poolSize,
    unbounded: async (work) => {
      const own = openPostgres(url, { poolSize: 1, deadlineMs: 0 });
      try {
        return await work(own);
      } finally {
        await own.close();
      }
    },
    startBackground: () => undefined,
    close: () => kysely.destroy(),
  };
}
