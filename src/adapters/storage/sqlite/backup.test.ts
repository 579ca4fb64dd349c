import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.ts';
import { backupSqlite } from './backup.ts';

// The command around it, beside a running service and restored: test/e2e/backup-cli.test.ts.
describe('an online backup of SQLite', () => {
  it('finishes beside another process writing all the time, with one moment of the database', async () => {
    const dir = tempDir('backup-unit-');
    const source = `${dir}/src.db`;
    const db = new BetterSqlite3(source);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (id integer primary key, v text)');
    // The service's settings table, where the copy is marked as one (decision 0137).
    db.exec(
      'create table settings (scope text not null, key text not null, value_json text not null, ' +
        'updated_at bigint not null, primary key (scope, key))',
    );
    const insert = db.prepare('insert into t (v) values (?)');
    db.transaction(() => {
      for (let i = 0; i < 150_000; i++) insert.run('y'.repeat(200));
    })();
    db.close();
    // Copied 100 pages at a time (better-sqlite3's default), each write restarted the copy: it never finished, and this
    // test ran into its time limit.
    const driver = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    const writer = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const D = (await import(${JSON.stringify(driver)})).default;
         const db = new D(${JSON.stringify(source)}); db.pragma('busy_timeout = 5000');
         const ins = db.prepare('insert into t (v) values (?)');
         console.log('writing');
         for (;;) { ins.run('x'); await new Promise((r) => setImmediate(r)); }`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((resolve) => writer.stdout.once('data', resolve));
      await backupSqlite(source, `${dir}/copy.db`);
    } finally {
      writer.kill('SIGKILL');
    }
    const copy = new BetterSqlite3(`${dir}/copy.db`, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(copy.prepare('select count(*) from t').pluck().get()).toBeGreaterThanOrEqual(150_000);
    const mark = "select value_json from settings where scope = 'instance' and key = 'copy_made_at'";
    expect(Date.parse(JSON.parse(copy.prepare(mark).pluck().get() as string) as string)).toBeGreaterThan(
      Date.now() - 60_000,
    );
    copy.close();
    const original = new BetterSqlite3(source, { readonly: true });
    expect(original.prepare(mark).pluck().get()).toBeUndefined();
    original.close();
    expect(existsSync(`${dir}/copy.db.partial`)).toBe(false);
  }, 20_000);
});
