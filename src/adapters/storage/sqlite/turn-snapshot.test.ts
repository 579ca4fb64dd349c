import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.ts';
import { hotBatch, hotQuery } from '../hot-query.ts';
import { migrateToLatest } from '../index.ts';
import { openSqlite, type SqliteDb } from './open-sqlite.ts';

// The service's SQLite reads share one read transaction per event-loop turn (turn-snapshot.ts). These pin what
// that may and may not change: another process's write shows from the next turn; this connection's own writes,
// transactions and shutdown behave exactly as without it.
describe('reads sharing a snapshot per turn', () => {
  let path: string;
  let db: SqliteDb;
  let other: BetterSqlite3.Database;
  beforeEach(async () => {
    path = `${tempDir('snap-')}/test.db`;
    db = openSqlite(path);
    await migrateToLatest(db);
    other = new BetterSqlite3(path); // stands for the CLI or another process on the same file
    other.pragma('busy_timeout = 1000');
  });
  afterEach(async () => {
    other.close();
    await db.close();
  });

  const nextTurn = () => new Promise((r) => setImmediate(r));
  const put = (key: string) =>
    db.kysely.insertInto('settings').values({ scope: 's', key, value_json: '1', updated_at: 1 }).execute();
  const hotKeys = () =>
    hotQuery<{ key: string }, { scope: string }>(db, (p) =>
      db.kysely
        .selectFrom('settings')
        .select('key')
        .where('scope', 'in', [p('scope')])
        .orderBy('key'),
    );
  const keysViaKysely = async () =>
    (await db.kysely.selectFrom('settings').select('key').orderBy('key').execute()).map((r) => r.key);

  it("sees another process's write from the next turn, not halfway through this one", async () => {
    const read = hotKeys();
    await put('a');
    await nextTurn();
    expect(await read({ scope: 's' })).toEqual([{ key: 'a' }]); // opens this turn's snapshot
    other
      .prepare("insert into settings (scope, key, value_json, updated_at) values ('s', 'b', '1', 1)")
      .run();
    expect(await read({ scope: 's' })).toEqual([{ key: 'a' }]);
    expect(await keysViaKysely()).toEqual(['a']); // Kysely's reads share it
    await nextTurn();
    expect(await read({ scope: 's' })).toEqual([{ key: 'a' }, { key: 'b' }]);
  });

  it('sees its own writes at once, made through Kysely or as a hot batch', async () => {
    const read = hotKeys();
    const insert = hotBatch<{ scope: string; key: string; value_json: string; updated_at: number }>(
      db,
      (rows) => db.kysely.insertInto('settings').values([...rows]),
    );
    expect(await read({ scope: 's' })).toEqual([]);
    await put('a');
    expect(await read({ scope: 's' })).toEqual([{ key: 'a' }]);
    await insert([{ scope: 's', key: 'b', value_json: '1', updated_at: 1 }]);
    expect(await read({ scope: 's' })).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect(await keysViaKysely()).toEqual(['a', 'b']);
  });

  it('lets a Kysely transaction begin, commit and roll back while a snapshot is open', async () => {
    const read = hotKeys();
    expect(await read({ scope: 's' })).toEqual([]);
    await db.kysely.transaction().execute(async (tx) => {
      await tx
        .insertInto('settings')
        .values({ scope: 's', key: 'kept', value_json: '1', updated_at: 1 })
        .execute();
    });
    expect(await read({ scope: 's' })).toEqual([{ key: 'kept' }]);
    await expect(
      db.kysely.transaction().execute(async (tx) => {
        await tx
          .insertInto('settings')
          .values({ scope: 's', key: 'gone', value_json: '1', updated_at: 1 })
          .execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await read({ scope: 's' })).toEqual([{ key: 'kept' }]);
  });

  it('never holds up another process writing, and ends with the turn', async () => {
    const read = hotKeys();
    await read({ scope: 's' });
    expect(db.sqlite.inTransaction).toBe(true); // the snapshot
    other
      .prepare("insert into settings (scope, key, value_json, updated_at) values ('s', 'x', '1', 1)")
      .run();
    await nextTurn();
    expect(db.sqlite.inTransaction).toBe(false);
  });

  it('closes cleanly with a snapshot open', async () => {
    await hotKeys()({ scope: 's' });
    expect(db.sqlite.inTransaction).toBe(true);
    await db.close();
    db = openSqlite(path);
    expect(await keysViaKysely()).toEqual([]);
  });
});

describe('closing', () => {
  it('closes the file even when Kysely never ran a statement (the hot statements run on the handle alone)', async () => {
    const db = openSqlite(`${tempDir('close-')}/test.db`);
    db.statement('select 1').get();
    await db.close();
    expect(db.sqlite.open).toBe(false);
  });
});
