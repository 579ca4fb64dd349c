import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

/**
 * A consistent copy of a SQLite database taken while the service runs (SQLite's online backup API: pages are copied
 * in steps, and a write by the service meanwhile restarts the copy from the changed page, so the copy is one moment
 * of the database). Written to `<destination>.partial`, owner-only, checked, then renamed: a copy cut short never
 * sits at the destination looking whole. Refuses to overwrite anything.
 */
export async function backupSqlite(source: string, destination: string): Promise<{ bytes: number }> {
  if (!existsSync(source)) throw new BackupError(`no database at ${source} (is DATA_DIR right?)`);
  if (existsSync(destination)) throw new BackupError(`${destination} already exists; choose a new file`);
  const partial = `${destination}.partial`;
  rmSync(partial, { force: true });
  const db = new BetterSqlite3(source, { fileMustExist: true });
  // The copy holds the same personal data and sealed credentials as the database: owner-only from its first byte.
  const umask = process.umask(0o077);
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(partial);
    const copy = new BetterSqlite3(partial, { fileMustExist: true });
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`the copy did not pass SQLite's check: ${String(check)}`);
      // A backup is one file: the copy leaves WAL mode, so no -wal or -shm file has to travel with it.
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    renameSync(partial, destination);
    return { bytes: statSync(destination).size };
  } catch (e) {
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
    throw e;
  } finally {
    process.umask(umask);
    db.close();
  }
}
