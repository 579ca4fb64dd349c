import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { readConfiguration } from '../../src/config/index.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { runCommand, startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { ownedDataDir } from '../support/owned-data-dir.ts';

const running: ServiceProcess[] = [];
afterAll(() => {
  for (const s of running) s.child.kill('SIGKILL');
});

describe('inbox-triage backup', () => {
  it('copies the database while the service runs into one owner-only file that restores with the key', async () => {
    const dataDir = await ownedDataDir('backup-');
    const svc = await startService({ DATA_DIR: dataDir });
    running.push(svc);

    const copy = join(tempDir('backup-to-'), 'triage.db');
    const done = await runCommand({ DATA_DIR: dataDir }, 'backup', copy);
    expect(done.code).toBe(0);
    expect(done.out).toContain(`to ${copy} (`);
    expect(done.out).toContain(
      `Keep a copy of ${join(dataDir, 'encryption.key')} too, apart from the backups`,
    );
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    expect(existsSync(`${copy}-wal`) || existsSync(`${copy}.partial`)).toBe(false);
    const db = new BetterSqlite3(copy, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.prepare('select email from accounts').pluck().all()).toEqual(['owner@example.test']);
    db.close();
    expect((await fetch(`${svc.baseUrl}/readyz`)).status).toBe(200);

    // Restored: the copy and the key in a new DATA_DIR are the same service.
    const restored = tempDir('restored-');
    mkdirSync(restored, { recursive: true });
    copyFileSync(copy, join(restored, 'inbox-triage.db'));
    copyFileSync(join(dataDir, 'encryption.key'), join(restored, 'encryption.key'));
    // The first command on it takes the copy up (decision 0137), and says so to whoever runs it.
    const listed = await runCommand({ DATA_DIR: restored }, 'account', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('owner@example.test');
    expect(listed.err).toMatch(/^inbox-triage: this database is restored from a copy made at 20\d\d-/);
    const again = readConfiguration({ DATA_DIR: restored }, '/');
    const app = await createApp(again.config, again.secrets, { log: silentLogger });
    expect(await app.services.accounts.needsSetup()).toBe(false);
    await app.close();

    const twice = await runCommand({ DATA_DIR: dataDir }, 'backup', copy);
    expect(twice).toMatchObject({
      code: 1,
      err: `inbox-triage: ${copy} already exists; choose a new file\n`,
    });
  });

  it('says what to do instead where there is nothing to copy or the database is PostgreSQL', async () => {
    const usage = await runCommand({ DATA_DIR: tempDir('backup-') }, 'backup');
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('Usage:');

    const empty = tempDir('backup-empty-');
    const none = await runCommand({ DATA_DIR: empty }, 'backup', join(empty, 'copy.db'));
    expect(none.code).toBe(1);
    expect(none.err).toBe(
      `inbox-triage: no database at ${join(empty, 'inbox-triage.db')} (is DATA_DIR right?)\n`,
    );
    expect(existsSync(join(empty, 'encryption.key'))).toBe(false);

    const pg = await runCommand(
      { DATA_DIR: tempDir('backup-'), DATABASE_URL: 'postgres://app:secret@127.0.0.1:1/triage' },
      'backup',
      '/tmp/never.db',
    );
    expect(pg.code).toBe(2);
    expect(pg.err).toContain('back it up with pg_dump');
    expect(pg.err).not.toContain('secret');
  });
});
