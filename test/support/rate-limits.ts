import { afterAll } from 'vitest';
import { tableRateLimiter } from '../../src/adapters/rate-limits/table-rate-limiter.ts';
import { migrateToLatest, openSqlite } from '../../src/adapters/storage/index.ts';
import type { RateLimiter } from '../../src/core/rate-limits/rate-limiter.ts';
import { systemClock } from '../../src/lib/clock.ts';

/**
 * The service's rate limiter on a database of its own (SQLite in memory, migrated), on the machine's clock, for a
 * test of one service or route without a whole app. Closed after the file's tests.
 */
export async function rateLimiterOnItsOwn(): Promise<RateLimiter> {
  const db = openSqlite(':memory:');
  await migrateToLatest(db);
  afterAll(() => db.close());
  return tableRateLimiter(db, systemClock);
}
