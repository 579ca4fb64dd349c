import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimiterContract } from '../../core/rate-limits/rate-limiter.contract.ts';
import type { RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import { newId } from '../../lib/random.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { migrateToLatest, openPostgres, type PostgresDb } from '../storage/index.ts';
import { flexibleRateLimiter } from './flexible-rate-limiter.ts';

describe('rate limiter in memory', () => {
  const limiters = {
    first: flexibleRateLimiter({ kind: 'memory' }),
    second: flexibleRateLimiter({ kind: 'memory' }),
    shared: false,
  };
  rateLimiterContract(() => limiters);
});

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
    first = flexibleRateLimiter({ kind: 'postgres', pool: a.pool });
    second = flexibleRateLimiter({ kind: 'postgres', pool: b.pool });
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
});
