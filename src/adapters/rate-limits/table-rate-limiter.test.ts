import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimiterContract } from '../../core/rate-limits/rate-limiter.contract.ts';
import type { RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/random.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { DatabaseClock, databaseReadings } from '../storage/database-clock.ts';
import {
  migrateToLatest,
  openPostgres,
  openSqlite,
  type PostgresDb,
  type SqliteDb,
} from '../storage/index.ts';
import { tableRateLimiter } from './table-rate-limiter.ts';

describe('rate limiter on PostgreSQL (two pools: two processes)', () => {
  let a: PostgresDb;
  let b: PostgresDb;
  let first: RateLimiter;
  let second: RateLimiter;
  beforeAll(async () => {
    const url = await freshPgDatabase();
    a = openPostgres(url);
    b = openPostgres(url);
    await migrateToLatest(a);
    first = tableRateLimiter(a, systemClock);
    second = tableRateLimiter(b, systemClock);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });
  rateLimiterContract(() => ({ first, second, shared: true }));

  it('deletes in a sweep the rows of windows that ended before it, and only those', async () => {
    const name = `sweep${newId('r').slice(2, 10)}`;
    const rows = async () =>
      (
        await a.pool.query<{ key: string }>('SELECT key FROM rate_limits WHERE key LIKE $1 ORDER BY key', [
          `${name}%`,
        ])
      ).rows.map((r) => r.key);
    await first.consume({ name: `${name}-second`, points: 5, windowSeconds: 1 }, 'k');
    await first.consume({ name: `${name}-minute`, points: 5, windowSeconds: 60 }, 'k');
    expect(await rows()).toEqual([`${name}-minute:k`, `${name}-second:k`]);
    // As if swept 2 s from now: the one-second window has ended, the minute's has not.
    expect(await second.deleteExpired(new Date(Date.now() + 2_000))).toBeGreaterThanOrEqual(1);
    expect(await rows()).toEqual([`${name}-minute:k`]);
  });

  // Decision 0129: two nodes whose machines disagree by an hour, each keeping the cluster's clock, count one window.
  // With each machine's own clock, the node ahead started a new window at every request it counted (its clock past
  // the window's end) and the window it wrote lasted an hour on the other node.
  it('keeps one window across nodes whose machines disagree by an hour', async () => {
    const aheadByHour: Clock = { now: () => new Date(Date.now() + 3_600_000) };
    const clocks = [
      new DatabaseClock({ machine: systemClock, readings: databaseReadings(a.pool) }),
      new DatabaseClock({ machine: aheadByHour, readings: databaseReadings(b.pool) }),
    ];
    for (const c of clocks) await c.measure();
    const nodes = [tableRateLimiter(a, clocks[0]!), tableRateLimiter(b, clocks[1]!)];
    const rule = { name: `skew${newId('r').slice(2, 10)}`, points: 5, windowSeconds: 60 };
    const decisions = [];
    for (let i = 0; i < 20; i++) decisions.push(await nodes[i % 2]!.consume(rule, 'k'));
    expect(decisions.map((d) => d.allowed)).toEqual([
      ...Array.from({ length: 5 }, () => true),
      ...Array.from({ length: 15 }, () => false),
    ]);
    // Both nodes see the window end within the minute it began.
    for (const d of decisions.slice(-2)) expect(d.allowed ? 0 : d.retryAfterSeconds).toBeLessThanOrEqual(60);
  });
});

describe('rate limiter on SQLite (decision 0147)', () => {
  let db: SqliteDb;
  let first: RateLimiter;
  let second: RateLimiter;
  beforeAll(async () => {
    db = openSqlite(':memory:');
    await migrateToLatest(db);
    first = tableRateLimiter(db, systemClock);
    second = tableRateLimiter(db, systemClock);
  });
  afterAll(() => db.close());
  rateLimiterContract(() => ({ first, second, shared: true }));

  const day = (): RateRule => ({ name: `day${newId('r').slice(2, 10)}`, points: 3, windowSeconds: 86_400 });

  // In memory, as before, every budget started again when the service did: a day's budget of new drafts or labels
  // was a budget per run of the process.
  it("keeps a day's budget spent across a restart of the service", async () => {
    const path = `${tempDir('rate-')}/inbox-triage.db`;
    const rule = day();
    let file = openSqlite(path);
    await migrateToLatest(file);
    expect(await tableRateLimiter(file, systemClock).consume(rule, 'inbox', 3)).toMatchObject({
      allowed: true,
    });
    await file.close();

    file = openSqlite(path);
    try {
      await migrateToLatest(file);
      const again = tableRateLimiter(file, systemClock);
      const refused = await again.consume(rule, 'inbox');
      expect(refused.allowed).toBe(false);
      expect(refused.allowed ? 0 : refused.retryAfterSeconds).toBeGreaterThan(86_000);
      expect((await again.peek(rule, 'other inbox')).allowed).toBe(true);
    } finally {
      await file.close();
    }
  });

  it('counts on the clock it is given: a window ends when that clock says', async () => {
    const rule = day();
    expect((await first.consume(rule, 'k', 3)).allowed).toBe(true);
    const dayLater: Clock = { now: () => new Date(Date.now() + 86_400_000 + 1_000) };
    expect(await tableRateLimiter(db, dayLater).consume(rule, 'k')).toMatchObject({
      allowed: true,
      remaining: 2,
    });
  });

  // better-sqlite3 has one connection: a statement run on it directly while a transaction of Kysely's is open joins
  // that transaction, and its rollback would take the count with it.
  it('counts apart from a transaction that is open meanwhile and rolled back', async () => {
    const rule = day();
    let counting: Promise<unknown> | undefined;
    await expect(
      db.kysely.transaction().execute(async (tx) => {
        await sql`SELECT 1`.execute(tx);
        counting = first.consume(rule, 'k', 3);
        await new Promise((r) => setTimeout(r, 20));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await counting;
    expect((await first.peek(rule, 'k')).allowed).toBe(false);
  });

  it('deletes in a sweep the rows of windows that ended before it, and only those', async () => {
    const name = `sweep${newId('r').slice(2, 10)}`;
    const rows = () =>
      (
        db.sqlite.prepare('SELECT key FROM rate_limits WHERE key LIKE ? ORDER BY key').all(`${name}%`) as {
          key: string;
        }[]
      ).map((r) => r.key);
    await first.consume({ name: `${name}-second`, points: 5, windowSeconds: 1 }, 'k');
    await first.consume({ name: `${name}-minute`, points: 5, windowSeconds: 60 }, 'k');
    expect(rows()).toEqual([`${name}-minute:k`, `${name}-second:k`]);
    expect(await second.deleteExpired(new Date(Date.now() + 2_000))).toBe(1);
    expect(rows()).toEqual([`${name}-minute:k`]);
  });
});
