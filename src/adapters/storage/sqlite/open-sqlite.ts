import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteDialect, type DialectAdapter } from 'kysely';
import type { Database } from '../schema.ts';
import { cachedStatements, preparingFrom } from './statement-cache.ts';
import { TurnSnapshot } from './turn-snapshot.ts';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.ts';

/** The embedded database: one connection (better-sqlite3 runs in this thread), and what makes it fast here. */
export interface SqliteDb {
  readonly dialect: 'sqlite';
  readonly kysely: Kysely<Database>;
  /** The handle itself, for statements run without Kysely's per-query overhead (hot-query.ts). */
  readonly sqlite: BetterSqlite3.Database;
  /** The read transaction this turn's reads share (turn-snapshot.ts). */
  readonly snapshot: TurnSnapshot;
  /**
   * The prepared statement for `sql`, from the cache Kysely uses too, with this turn's snapshot joined (a plain
   * read) or ended (anything else). Call it right before running the statement.
   */
  readonly statement: (sql: string) => BetterSqlite3.Statement;
  /**
   * Starts WAL checkpoints in a worker thread, once (a file database; nothing for `:memory:`). `close()` stops
   * them.
   */
  startBackground(onError?: (e: Error) => void): WalCheckpointer | undefined;
  close(): Promise<void>;
}

/**
 * SQLite's DDL is transactional, but Kysely's adapter says otherwise, so its Migrator ran SQLite migrations without
 * a transaction: a process killed mid-migration left tables its next start could not create again (found by the
 * crash trials, test/rig/crash-trials.ts). With this, pending migrations run in one transaction, as on PostgreSQL.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** Opens a SQLite file (or `:memory:`) with WAL, a busy timeout and foreign keys; owner-only permissions. */
export function openSqlite(path: string): SqliteDb {
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const sqlite = new BetterSqlite3(path);
  // Mail metadata is personal data: owner-only, like the key file beside it (WAL/SHM files inherit this).
  if (!inMemory) chmodSync(path, 0o600);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  const snapshot = new TurnSnapshot(sqlite);
  const statement = cachedStatements(sqlite, snapshot);
  const kysely = new Kysely<Database>({
    dialect: new TransactionalDdlSqliteDialect({ database: preparingFrom(sqlite, statement) }),
  });
  let checkpointer: WalCheckpointer | undefined;
  return {
    dialect: 'sqlite',
    kysely,
    sqlite,
    snapshot,
    statement,
    startBackground: (onError) => {
      if (!inMemory)
        checkpointer ??= startWalCheckpointer(sqlite, path, onError === undefined ? {} : { onError });
      return checkpointer;
    },
    close: async () => {
      await checkpointer?.stop();
      snapshot.end();
      await kysely.destroy();
      // Kysely closes the handle only if it ever opened a connection; the hot statements run on it without Kysely.
      if (sqlite.open) sqlite.close();
    },
  };
}
