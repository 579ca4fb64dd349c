import { readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';

// A canary for the one Kysely internal the SQLite adapter relies on (statement-cache.ts): its SqliteDriver calls
// `prepare` on the handle right before it runs each query — never caching a statement, never preparing earlier.
// The per-turn snapshot and the statement cache hang on that call. Kysely is pinned exactly; if an upgrade
// changes the driver, this fails and the cache must be rethought before the upgrade lands.
describe('Kysely canary: SqliteDriver prepares each query right before running it', () => {
  it('is the pinned version', () => {
    const root = new URL('../../../../', import.meta.url);
    const pinned = (
      JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
        dependencies: Record<string, string>;
      }
    ).dependencies['kysely'];
    const installed = (
      JSON.parse(readFileSync(new URL('node_modules/kysely/package.json', root), 'utf8')) as {
        version: string;
      }
    ).version;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed).toBe(pinned);
  });

  it('prepare, then run, for every query: selects, writes, and inside transactions', async () => {
    const calls: string[] = [];
    const handle = new BetterSqlite3(':memory:');
    const recording = new Proxy(handle, {
      get(target, prop) {
        if (prop === 'prepare')
          return (text: string) => {
            calls.push(`prepare ${text}`);
            const statement = target.prepare(text);
            return new Proxy(statement, {
              get(st, p) {
                const v = Reflect.get(st, p) as unknown;
                if (typeof v !== 'function') return v;
                const fn = v as (...a: unknown[]) => unknown;
                return (...args: unknown[]) => {
                  if (p === 'all' || p === 'run' || p === 'iterate') calls.push(`${p} ${text}`);
                  return fn.apply(st, args);
                };
              },
            });
          };
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const db = new Kysely<{ t: { id: number; v: string } }>({
      dialect: new SqliteDialect({ database: recording }),
    });
    await sql`create table t (id integer primary key, v text)`.execute(db);
    await db.insertInto('t').values({ id: 1, v: 'a' }).execute();
    await db.selectFrom('t').selectAll().execute();
    await db.selectFrom('t').selectAll().execute(); // the same SQL again: prepared again
    await db.transaction().execute(async (tx) => {
      await tx.updateTable('t').set({ v: 'b' }).where('id', '=', 1).execute();
      await tx.selectFrom('t').select('v').execute();
    });
    await db.destroy();
    const runs = calls.filter((c) => !c.startsWith('prepare '));
    expect(runs.length).toBeGreaterThanOrEqual(7); // create, insert, 2 selects, begin, update, select, commit
    calls.forEach((c, i) => {
      if (c.startsWith('prepare ')) return;
      expect(calls[i - 1], `${c} was not prepared right before it ran`).toBe(
        `prepare ${c.slice(c.indexOf(' ') + 1)}`,
      );
    });
  });
});
