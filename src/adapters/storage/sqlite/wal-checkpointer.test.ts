import { statSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.ts';
import { migrateToLatest } from '../index.ts';
import { openSqlite } from './open-sqlite.ts';
import { startWalCheckpointer } from './wal-checkpointer.ts';

describe('WAL checkpoints in a worker thread', () => {
  it('copies the WAL into the database off the service’s thread, and stops with close()', async () => {
    const path = `${tempDir('wal-')}/test.db`;
    const db = openSqlite(path);
    await migrateToLatest(db);
    const checkpointer = db.startBackground()!;
    expect(db.startBackground()!).toBe(checkpointer); // one worker per database
    // The service's own connection no longer checkpoints at SQLite's default of 1000 pages.
    expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);

    const insert = db.sqlite.prepare(
      'insert into settings (scope, key, value_json, updated_at) values (?, ?, ?, ?)',
    );
    db.sqlite.transaction(() => {
      for (let i = 0; i < 5000; i++) insert.run('s', `k${String(i)}`, JSON.stringify('x'.repeat(200)), i);
    })();
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(1_000_000);

    let r = await checkpointer.checkpointNow();
    for (let i = 0; i < 20 && r.checkpointed < r.log; i++) r = await checkpointer.checkpointNow();
    expect(r.log).toBeGreaterThan(100);
    expect(r.checkpointed).toBe(r.log);

    await db.close();
    const reopened = openSqlite(path);
    const { n } = reopened.sqlite.prepare('select count(*) as n from settings').get() as { n: number };
    expect(n).toBe(5000);
    await reopened.close();
  });

  it('reports a worker that cannot work, and leaves the WAL to the service’s own backstop', async () => {
    const db = openSqlite(`${tempDir('wal-')}/test.db`);
    const errors: Error[] = [];
    const broken = startWalCheckpointer(db.sqlite, `${tempDir('wal-')}/missing/dir/x.db`, {
      onError: (e) => errors.push(e),
    });
    await expect(broken.checkpointNow()).rejects.toThrow();
    await vi.waitFor(() => {
      expect(errors.length).toBeGreaterThan(0);
    });
    expect(db.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    await broken.stop();
    await db.close();
  });

  it('runs its thread only while the service writes: none at rest, one after a write, gone after idleMs', async () => {
    const path = `${tempDir('wal-')}/test.db`;
    const db = openSqlite(path);
    await migrateToLatest(db);
    const checkpointer = startWalCheckpointer(db.sqlite, path, { intervalMs: 20, idleMs: 200 });
    await new Promise((r) => setTimeout(r, 100));
    expect(checkpointer.running()).toBe(false);

    db.sqlite
      .prepare('insert into settings (scope, key, value_json, updated_at) values (?, ?, ?, ?)')
      .run('s', 'k', '"x"', 1);
    await vi.waitFor(() => {
      expect(checkpointer.running()).toBe(true);
    });
    // The write reaches the database file without anyone asking.
    await vi.waitFor(async () => {
      const r = await checkpointer.checkpointNow();
      expect(r.checkpointed).toBe(r.log);
    });
    await vi.waitFor(
      () => {
        expect(checkpointer.running()).toBe(false);
      },
      { timeout: 3000 },
    );
    await checkpointer.stop();
    await db.close();
  });

  it('does not start for an in-memory database', async () => {
    const db = openSqlite(':memory:');
    expect(db.startBackground()).toBeUndefined();
    await db.close();
  });
});
