import type pg from 'pg';
import type { RateDecision, RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import { boundedKey } from './flexible-rate-limiter.ts';

/**
 * Fixed windows in the PostgreSQL table `rate_limits`, shared by every process on the database (decision 0129). One
 * row per rule and key: the points counted in the window and when it ends, in milliseconds. The first count after a
 * window ended starts a new one; every count is one statement, so of many at once on many nodes exactly the budget is
 * allowed.
 *
 * The time comes from the cluster's clock (`DatabaseClock`), not from this machine's: a window one node opened is
 * seen to end at the same moment by every node. (rate-limiter-flexible's PostgreSQL store, used before, reads
 * `Date.now()`: a node an hour ahead reset every window it counted in, and its windows then lasted an hour on the
 * others.) The table keeps that library's layout, so rows written before the change count on.
 */
export function postgresRateLimiter(pool: pg.Pool, clock: Clock): RateLimiter {
  const rowKey = (rule: RateRule, key: string) => `${rule.name}:${boundedKey(key)}`;
  const retryAfter = (expire: number, now: number) => Math.max(1, Math.ceil((expire - now) / 1000));
  return {
    async consume(rule, key, points = 1): Promise<RateDecision> {
      const now = clock.now().getTime();
      const r = await pool.query<{ points: number; expire: string }>({
        name: 'rate-limit-consume',
        text: `INSERT INTO rate_limits (key, points, expire) VALUES ($1, $2, $3)
               ON CONFLICT (key) DO UPDATE SET
                 points = CASE WHEN rate_limits.expire <= $4 THEN $2 ELSE rate_limits.points + $2 END,
                 expire = CASE WHEN rate_limits.expire <= $4 THEN $3 ELSE rate_limits.expire END
               RETURNING points, expire`,
        values: [rowKey(rule, key), points, now + rule.windowSeconds * 1000, now],
      });
      const row = r.rows[0];
      if (row === undefined) throw new Error('rate_limits: the upsert returned no row');
      // Read again: a count begun after this one may have opened the window first, its end later than `now` allows.
      const after = clock.now().getTime();
      // A refused request's points stay counted (as tried), as rate-limiter-flexible counted them.
      const expire = Number(row.expire);
      return row.points > rule.points
        ? { allowed: false, retryAfterSeconds: retryAfter(expire, after) }
        : { allowed: true, remaining: rule.points - row.points, windowEndsInMs: Math.max(0, expire - after) };
    },
    async peek(rule, key): Promise<RateDecision> {
      const now = clock.now().getTime();
      const r = await pool.query<{ points: number; expire: string }>({
        name: 'rate-limit-peek',
        text: 'SELECT points, expire FROM rate_limits WHERE key = $1 AND expire > $2',
        values: [rowKey(rule, key), now],
      });
      const row = r.rows[0];
      if (row === undefined) return { allowed: true, remaining: rule.points };
      return row.points >= rule.points
        ? { allowed: false, retryAfterSeconds: retryAfter(Number(row.expire), now) }
        : { allowed: true, remaining: rule.points - row.points };
    },
    async reset(rule, key) {
      await pool.query('DELETE FROM rate_limits WHERE key = $1', [rowKey(rule, key)]);
    },
    async deleteExpired(before) {
      // A row stays until deleted: one per client address that ever asked and per credential (decision 0065).
      const r = await pool.query('DELETE FROM rate_limits WHERE expire < $1', [before.getTime()]);
      return r.rowCount ?? 0;
    },
  };
}
