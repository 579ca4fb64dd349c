import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/** Another service already runs on this SQLite database. */
export class InstanceRunningError extends Error {
  override readonly name = 'InstanceRunningError';
}

export interface InstanceLock {
  release(): void;
}

/**
 * One service per SQLite database (decision 0052). Its scheduler, its watchers, its per-inbox mutex and its
 * credential cache are per process, so a second service on the same file would watch every inbox twice, let two
 * actions on one message race, and keep a key revoked in the other working for `CREDENTIAL_CACHE_SECONDS`.
 *
 * The lock is an exclusive SQLite lock on `<database>.instance`, held by a connection in exclusive locking mode for
 * as long as the service runs: the operating system drops it when the process ends, however it ends, so there is no
 * stale lock to clear after a crash. The database itself is not locked: the CLI (`account`, `key`, `migrate`) and a
 * backup still open it beside the service.
 */
export function holdInstanceLock(databasePath: string): InstanceLock {
  if (databasePath === ':memory:') return { release: () => undefined };
  const path = `${databasePath}.instance`;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new BetterSqlite3(path, { timeout: 0 });
  try {
    chmodSync(path, 0o600);
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock, and exclusive locking mode keeps it until the connection closes.
    db.exec('CREATE TABLE IF NOT EXISTS instance (pid INTEGER NOT NULL, started_at INTEGER NOT NULL)');
    db.transaction(() => {
      db.exec('DELETE FROM instance');
      db.prepare('INSERT INTO instance (pid, started_at) VALUES (?, ?)').run(process.pid, Date.now());
    })();
  } catch (e) {
    db.close();
    if ((e as { code?: unknown }).code === 'SQLITE_BUSY')
      throw new InstanceRunningError(
        `another Inbox Triage service is running on ${databasePath}: stop it first, or give this one its own ` +
          'DATA_DIR (several services on one database need PostgreSQL: DATABASE_URL)',
      );
    throw e;
  }
  return { release: () => db.close() };
}
