import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimiterContract } from '../../core/rate-limits/rate-limiter.contract.ts';
import type { RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/random.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { DatabaseClock, databaseReadings } from '../storage/database-clock.ts';
import { migrateToLatest, openPostgres, type PostgresDb } from '../storage/index.ts';
import { postgresRateLimiter } from './postgres-rate-limiter.ts';

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
    first = postgresRateLimiter(a.pool, systemClock);
    second = postgresRateLimiter(b.pool, systemClock);
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
    const nodes = [postgresRateLimiter(a.pool, clocks[0]!), postgresRateLimiter(b.pool, clocks[1]!)];
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
