import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { startFaultProxy, type FaultProxy } from '../../../test/rig/fault-proxy.ts';
import { openPostgres } from './database.ts';
import { migrateToLatest } from './migrator.ts';
import { DatabaseDeadlineError } from './pg-deadline.ts';
import { PgAdvisorySerializer } from './pg-advisory-serializer.ts';

// Two sides: PostgreSQL cancels a statement at the deadline (statement_timeout) and says so; a database that says
// nothing (the fault proxy holding its bytes) is given up by the client a little later. The whole service under
// both: test/e2e/database-outage.test.ts.

describe('the deadline on PostgreSQL statements (decision 0063)', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  it('has PostgreSQL cancel a statement running past it: failed means not done, and the session goes on', async () => {
    const db = openPostgres(await freshPgDatabase(), { poolSize: 1, deadlineMs: 300 });
    open.push(db);
    await sql`create table marks (n int)`.execute(db.kysely);
    const slow = sql`insert into marks select 1 from pg_sleep(1)`.execute(db.kysely);
    await expect(slow).rejects.toThrow(/canceling statement due to statement timeout/);
    expect((await sql<{ n: string }>`select count(*) as n from marks`.execute(db.kysely)).rows).toEqual([
      { n: 0 },
    ]);
    const pid = async () =>
      (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely)).rows[0]?.pid;
    const before = await pid();
    await expect(sql`select pg_sleep(1)`.execute(db.kysely)).rejects.toThrow(/statement timeout/);
    expect(await pid()).toBe(before); // a cancel is an answer: the connection is kept
  });

  describe('a database that says nothing at all', () => {
    let proxy: FaultProxy;
    let url: string;
    beforeEach(async () => {
      const real = new URL(await freshPgDatabase());
      proxy = await startFaultProxy({ host: real.hostname, port: Number(real.port) });
      open.push(proxy);
      real.port = String(proxy.port);
      url = real.toString();
    });

    it('gives the statement up, drops its connection, and the pool goes on once it speaks again', async () => {
      // The deadline bounds a new connection too (its start-up, SCRAM exchange and session settings): 1 s, not
      // 0.3, so that a machine busy with other tests still connects within it once the database speaks again.
      const db = openPostgres(url, { poolSize: 1, deadlineMs: 1000 });
      open.push(db);
      await sql`select 1`.execute(db.kysely);
      proxy.inject({ kind: 'stall', ms: 3_600_000 }, { future: true });
      await expect(sql`select 2 as silent_one`.execute(db.kysely)).rejects.toThrow(DatabaseDeadlineError);
      // The callback form (pool.query) too; the pool's only connection was dropped and a new one cannot connect.
      await expect(db.pool.query('select 3')).rejects.toThrow(/timeout/);
      proxy.clear();
      expect((await sql<{ one: number }>`select 1 as one`.execute(db.kysely)).rows).toEqual([{ one: 1 }]);
      expect(db.pool.totalCount).toBe(1);
    });

    it('bounds pool.query (callbacks) on a connection it holds', async () => {
      const db = openPostgres(url, { poolSize: 1, deadlineMs: 300 });
      open.push(db);
      await db.pool.query('select 1');
      proxy.inject({ kind: 'stall', ms: 3_600_000 });
      await expect(db.pool.query('select 2')).rejects.toThrow(DatabaseDeadlineError);
    });
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
    ).rejects.toThrow(/statement timeout/);
    expect(ran).toBe(false);
    held.resolve(undefined);
    await first;
    // The waiter took nothing with it: the lock is free and the waiter takes it now.
    await waiter.run(['inbox-1'], () => {
      ran = true;
      return Promise.resolve();
    });
    expect(ran).toBe(true);
  });
});
