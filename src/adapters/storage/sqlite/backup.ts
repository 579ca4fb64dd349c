import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { INSTANCE_SCOPE } from '../../../core/settings/settings-store.ts';
import { COPY_MARK_SETTING, copyMark } from '../../../core/settings/restored-copy.ts';

const ALL_PAGES = 0x7fffffff;

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

/**
 * A consistent copy of a SQLite database taken while the service runs (SQLite's online backup API, every page in
 * one step from one snapshot: the copy is one moment of the database). Written to `<destination>.partial`,
 * owner-only, checked, then renamed: a copy cut short never sits at the destination looking whole. Refuses to
 * overwrite anything.
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
    // All pages in one step: copied in steps, a database the service writes to every few milliseconds restarts the
    // copy at each write and never finishes (70 MB beside one writer: still copying after a minute). One step reads a
    // single snapshot, and in WAL mode the service's writes go on meanwhile.
    await db.backup(partial, { progress: () => ALL_PAGES });
    const copy = new BetterSqlite3(partial, { fileMustExist: true });
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new BackupError(`the copy did not pass SQLite's check: ${String(check)}`);
      // The copy knows it is one: a service started on it after a restore withdraws what may have been used since
      // (decision 0137). The database itself is not touched.
      const madeAt = new Date();
      copy
        .prepare(
          'insert into settings (scope, key, value_json, updated_at) values (?, ?, ?, ?) ' +
            'on conflict (scope, key) do update set value_json = excluded.value_json, updated_at = excluded.updated_at',
        )
        .run(INSTANCE_SCOPE, COPY_MARK_SETTING, copyMark(madeAt), madeAt.getTime());
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
