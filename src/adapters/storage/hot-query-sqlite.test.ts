import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { sql } from 'kysely';
import { hotBatch, hotQuery, HotQueryError } from './hot-query.ts';
import { migrateToLatest } from './index.ts';
import { openSqlite, type SqliteDb } from './sqlite/open-sqlite.ts';

// SQLite hot statements run on the raw handle, beside Kysely's single connection. These pin what must not
// change because of that: the rows are Kysely's, and an open transaction is neither joined nor bypassed.
describe('hot statements on SQLite', () => {
  let db: SqliteDb;
  beforeEach(async () => {
    db = openSqlite(`${tempDir('hot-')}/test.db`);
    await migrateToLatest(db);
  });
  afterEach(async () => {
    await db.close();
  });

  interface Row {
    scope: string;
    key: string;
    value_json: string;
    updated_at: number;
  }
  const row = (key: string, value: string): Row => ({ scope: 's', key, value_json: value, updated_at: 1 });
  const settingsOf = (d: SqliteDb) =>
    hotQuery<{ key: string; value_json: string }, { key: string }>(d, (p) =>
      d.kysely
        .selectFrom('settings')
        .select(['key', 'value_json'])
        .where('key', 'in', [p('key')]),
    );
  const insertSettings = (d: SqliteDb) =>
    hotBatch<Row>(d, (rows) => d.kysely.insertInto('settings').values([...rows]));

  it('runs on the raw handle and answers what Kysely answers', async () => {
    expect(db.sqlite).toBeDefined();
    await insertSettings(db)([row('a', '1'), row('b', '2')]);
    const viaKysely = await db.kysely
      .selectFrom('settings')
      .select(['key', 'value_json'])
      .where('key', '=', 'b')
      .execute();
    expect(await settingsOf(db)({ key: 'b' })).toEqual(viaKysely);
    expect(await settingsOf(db)({ key: 'b' })).toEqual([{ key: 'b', value_json: '2' }]);
    expect(await settingsOf(db)({ key: 'zz' })).toEqual([]);
  });

  it('waits for an open transaction instead of joining it: a rollback does not take the hot write with it', async () => {
    const insert = insertSettings(db);
    const read = settingsOf(db);
    let hotWrite: Promise<void> | undefined;
    let hotRead: Promise<unknown[]> | undefined;
    let settledInside = false;
    await expect(
      db.kysely.transaction().execute(async (tx) => {
        await tx.insertInto('settings').values(row('uncommitted', 'x')).execute();
        hotWrite = insert([row('hot', 'y')]);
        hotRead = read({ key: 'uncommitted' });
        void Promise.race([hotWrite, hotRead]).then(() => (settledInside = true));
        await new Promise((r) => setTimeout(r, 20));
        expect(settledInside).toBe(false); // queued behind the transaction, not run inside it
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await hotWrite;
    expect(await hotRead).toEqual([]); // never saw the rolled-back row
    const keys = (await db.kysely.selectFrom('settings').select('key').execute()).map((r) => r.key);
    expect(keys).toContain('hot');
    expect(keys).not.toContain('uncommitted');
  });

  it('rejects, rather than throws, when SQLite refuses a statement', async () => {
    const insert = insertSettings(db);
    await insert([row('dup', '1')]);
    let thrown: unknown;
    const pending = (() => {
      try {
        return insert([row('dup', '2')]);
      } catch (e) {
        thrown = e;
        return undefined;
      }
    })();
    expect(thrown).toBeUndefined();
    await expect(pending).rejects.toThrow(/UNIQUE/);
  });

  it('inserts a batch of any size whole and in order', async () => {
    const insert = insertSettings(db);
    const keys = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `${tag}${String(i).padStart(4, '0')}`);
    for (const [n, tag] of [
      [300, 'a'],
      [48, 'b'],
      [1, 'c'],
      [255, 'd'],
    ] as const)
      await insert(keys(n, tag).map((k) => row(k, k)));
    const rows = await db.kysely
      .selectFrom('settings')
      .select(['key', 'value_json'])
      .orderBy('key')
      .execute();
    expect(rows.map((r) => r.key)).toEqual([
      ...keys(300, 'a'),
      ...keys(48, 'b'),
      ...keys(1, 'c'),
      ...keys(255, 'd'),
    ]);
    expect(rows.every((r) => r.key === r.value_json)).toBe(true);
  });

  it('is atomic: a row refused at the end of a batch leaves none of it behind', async () => {
    const insert = insertSettings(db);
    await insert([row('taken', '0')]);
    const batch = Array.from({ length: 263 }, (_, i) => row(`k${String(i)}`, '1'));
    await expect(insert([...batch, row('taken', '1')])).rejects.toThrow(/UNIQUE/);
    const left = await db.kysely.selectFrom('settings').select('key').execute();
    expect(left.map((r) => r.key)).toEqual(['taken']);
  });

  it('refuses to compile a value not written as p(name): it would be frozen into the statement', () => {
    expect(() =>
      hotQuery<{ key: string }, { key: string }>(db, (p) =>
        db.kysely
          .selectFrom('settings')
          .select('key')
          .where('key', 'in', [p('key')])
          .where('scope', '=', 's'),
      ),
    ).toThrow(HotQueryError);
    expect(() =>
      hotQuery<{ key: string }, { key: string }>(db, (p) =>
        db.kysely
          .selectFrom('settings')
          .select('key')
          .where('key', 'in', [p('key')])
          .where('scope', '=', sql.lit('s')),
      ),
    ).not.toThrow();
  });
});
