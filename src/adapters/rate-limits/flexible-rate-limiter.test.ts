import { afterAll, beforeAll, describe } from 'vitest';
import { rateLimiterContract } from '../../core/rate-limits/rate-limiter.contract.ts';
import type { RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
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
});
