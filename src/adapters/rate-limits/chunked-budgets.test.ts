import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimiterContract } from '../../core/rate-limits/rate-limiter.contract.ts';
import type { RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import { systemClock } from '../../lib/clock.ts';
import { newId } from '../../lib/random.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { migrateToLatest, openPostgres, type PostgresDb } from '../storage/index.ts';
import { chunkedBudgets } from './chunked-budgets.ts';
import { tableRateLimiter } from './table-rate-limiter.ts';

/** The store's limiter, counting the requests that reach it (each is one statement on PostgreSQL). */
function counted(inner: RateLimiter): RateLimiter & { calls: number } {
  const c = {
    calls: 0,
    consume: (rule: RateRule, key: string, points?: number) => {
      c.calls++;
      return inner.consume(rule, key, points);
    },
    peek: (rule: RateRule, key: string) => inner.peek(rule, key),
    reset: (rule: RateRule, key: string) => inner.reset(rule, key),
    deleteExpired: (before: Date) => inner.deleteExpired(before),
  };
  return c;
}

const budget = (points: number, chunk: number): RateRule => ({
  name: `c${newId('r').slice(2, 10)}`,
  points,
  windowSeconds: 60,
  chunk,
});

describe('chunked budgets on PostgreSQL (two pools: two processes)', () => {
  let a: PostgresDb;
  let b: PostgresDb;
  let storeA: RateLimiter & { calls: number };
  let storeB: RateLimiter & { calls: number };
  beforeAll(async () => {
    const url = await freshPgDatabase();
    a = openPostgres(url);
    b = openPostgres(url);
    await migrateToLatest(a);
    storeA = counted(tableRateLimiter(a, systemClock));
    storeB = counted(tableRateLimiter(b, systemClock));
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  // Rules without a chunk pass through: every promise of the port holds as before.
  rateLimiterContract(() => ({
    first: chunkedBudgets(storeA),
    second: chunkedBudgets(storeB),
    shared: true,
  }));

  it('never allows more than the budget across processes, leaves at most chunk − 1 a process unspent, and asks the store once a chunk', async () => {
    const first = chunkedBudgets(storeA);
    const second = chunkedBudgets(storeB);
    const r = budget(100, 10);
    storeA.calls = 0;
    storeB.calls = 0;
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? first : second).consume(r, 'k')),
    );
    const allowed = decisions.filter((d) => d.allowed).length;
    expect(allowed).toBeLessThanOrEqual(100);
    expect(allowed).toBeGreaterThanOrEqual(100 - 2 * 9);
    // Ten chunks and, once the budget is spent, the refused requests (one each, as before).
    expect(storeA.calls + storeB.calls).toBeLessThanOrEqual(10 + (300 - allowed));
    const refused = decisions.flatMap((d) => (d.allowed ? [] : [d.retryAfterSeconds]));
    expect(Math.min(...refused)).toBeGreaterThanOrEqual(1);
  });

  it('hands a chunk out only within the window it was counted in', async () => {
    let clock = 1_000_000;
    const limiter = chunkedBudgets(storeA, () => clock);
    const r = budget(50, 10);
    storeA.calls = 0;
    for (let i = 0; i < 5; i++) expect((await limiter.consume(r, 'w')).allowed).toBe(true);
    expect(storeA.calls).toBe(1);
    clock += 61_000; // the store's window has ended: the 5 points left of the chunk are dropped
    expect((await limiter.consume(r, 'w')).allowed).toBe(true);
    expect(storeA.calls).toBe(2);
  });

  it('sends a many-point request and a reset to the store', async () => {
    const limiter = chunkedBudgets(storeA);
    const r = budget(20, 10);
    await limiter.consume(r, 'x');
    await limiter.reset(r, 'x');
    expect(await limiter.peek(r, 'x')).toEqual({ allowed: true, remaining: 20 });
    expect(await limiter.consume(r, 'x', 20)).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume(r, 'x')).allowed).toBe(false);
  });
});
