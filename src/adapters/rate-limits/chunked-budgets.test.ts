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

  it('allows exactly the budget across processes, a chunk a statement, and refuses with none once it is spent', async () => {
    const first = chunkedBudgets(storeA);
    const second = chunkedBudgets(storeB);
    const r = budget(100, 10);
    storeA.calls = 0;
    storeB.calls = 0;
    const decisions = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? first : second).consume(r, 'k')),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    // Ten chunks; then, in each process, a chunk refused and a point refused — and the 200 refused requests answered
    // with no statement of their own.
    expect(storeA.calls + storeB.calls).toBeLessThanOrEqual(10 + 2 * 2);
    const refused = decisions.flatMap((d) => (d.allowed ? [] : [d.retryAfterSeconds]));
    expect(Math.min(...refused)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...refused)).toBeLessThanOrEqual(60);
  });

  it('spends the last of a window a point at a time, and takes chunks again in the next (0150)', async () => {
    let time = Date.UTC(2026, 11, 2, 9, 0, 0);
    const store = counted(tableRateLimiter(a, { now: () => new Date(time) }));
    const limiter = chunkedBudgets(store, () => time);
    // Three chunks of 10 do not fit a budget of 25: two do, and the last five go one by one.
    const r = budget(25, 10);
    const allowed = async (n: number) => {
      let yes = 0;
      for (let i = 0; i < n; i++) if ((await limiter.consume(r, 'tail')).allowed) yes++;
      return yes;
    };
    expect(await allowed(40)).toBe(25);
    // Two chunks, one refused, five points and one refused: the fifteen refused after it cost nothing.
    expect(store.calls).toBe(2 + 1 + 5 + 1);
    time += 30_000;
    expect(await allowed(5)).toBe(0);
    expect(store.calls).toBe(9);
    // The window over, a chunk at a time again.
    time += 30_001;
    expect(await allowed(10)).toBe(10);
    expect(store.calls).toBe(10);
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
