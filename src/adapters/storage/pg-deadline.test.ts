import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { openPostgres, type PostgresDb } from './database.ts';
import { migrateToLatest } from './migrator.ts';
import { DatabaseDeadlineError } from './pg-deadline.ts';
import { PgAdvisorySerializer } from './pg-advisory-serializer.ts';

// A statement PostgreSQL keeps busy stands in for one it never answers (a node cut off without a word): from the
// client's side the two look the same until the deadline. test/e2e/database-outage.test.ts has the real silence.

const backends = async (db: PostgresDb, tag: string) =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from pg_stat_activity where query like ${`%${tag}%`}
        and pid <> pg_backend_pid()`.execute(db.kysely)
    ).rows[0]?.n,
  );

describe('the deadline on PostgreSQL statements (decision 0063)', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  it('fails a statement unanswered past the deadline, drops its connection, and the pool goes on', async () => {
    const db = openPostgres(await freshPgDatabase(), { poolSize: 1, deadlineMs: 300 });
    open.push(db);
    await expect(sql`select pg_sleep(5) as slow_one`.execute(db.kysely)).rejects.toThrow(
      DatabaseDeadlineError,
    );
    // The only connection was dropped, not handed out again with the slow answer still to come: the next statement
    // runs at once on a new one.
    expect((await sql<{ one: number }>`select 1 as one`.execute(db.kysely)).rows).toEqual([{ one: 1 }]);
    expect(db.pool.totalCount).toBe(1);
    // The dropped session ends on the server too, once pg_sleep returns and it finds the socket closed.
    await eventually(
      'the dropped session gone',
      async () => ((await backends(db, 'slow_one')) === 0 ? true : undefined),
      15_000,
    );
  });

  it('bounds pool.query (callbacks) as well as Kysely (promises)', async () => {
    const db = openPostgres(await freshPgDatabase(), { poolSize: 2, deadlineMs: 300 });
    open.push(db);
    await expect(db.pool.query('select pg_sleep(5)')).rejects.toThrow(DatabaseDeadlineError);
    expect((await db.pool.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('leaves statements that answer in time alone, and migrations unbounded', async () => {
    const db = openPostgres(await freshPgDatabase(), { poolSize: 2, deadlineMs: 1000 });
    open.push(db);
    const r = await sql<{ done: string }>`select pg_sleep(0.2)::text as done`.execute(db.kysely);
    expect(r.rows).toHaveLength(1);
    // A migration longer than the deadline: it runs on a session of its own with none.
    const applied = await migrateToLatest(db, {
      '0001-slow': {
        up: async (k) => {
          await sql`select pg_sleep(1.5)`.execute(k);
        },
      },
    });
    expect(applied).toEqual(['0001-slow']);
  });

  it('bounds the wait for an inbox lock another node holds', async () => {
    const url = await freshPgDatabase();
    const holder = new PgAdvisorySerializer(url, { size: 1 });
    const waiter = new PgAdvisorySerializer(url, { size: 1, deadlineMs: 300 });
    open.push(holder, waiter);
    const held = Promise.withResolvers<undefined>();
    const isHeld = Promise.withResolvers<undefined>();
    const first = holder.run(['inbox-1'], async () => {
      isHeld.resolve(undefined);
      await held.promise;
    });
    await isHeld.promise;
    let ran = false;
    await expect(
      waiter.run(['inbox-1'], () => {
        ran = true;
        return Promise.resolve();
      }),
    ).rejects.toThrow(DatabaseDeadlineError);
    expect(ran).toBe(false);
    held.resolve(undefined);
    await first;
    // The waiter's dropped session took nothing with it: the lock is free and the waiter takes it now.
    await waiter.run(['inbox-1'], () => {
      ran = true;
      return Promise.resolve();
    });
    expect(ran).toBe(true);
  });
});
