import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import { sha256Hex } from '../../lib/secret-token.ts';

/**
 * The longest key kept as it is. `rate_limits.key` is varchar(255) and holds the rule's name, a colon and the key; a
 * key can be what someone typed (the address a sign-in was tried for, whatever it is), and one past the column failed
 * the request with a database error (found by the fuzzer: 400 characters typed as an email on the sign-in page). A
 * longer key is its SHA-256 instead, the same for the same key.
 */
const MAX_KEY_CHARS = 180;
export const boundedKey = (key: string): string =>
  key.length <= MAX_KEY_CHARS ? key : `sha256:${sha256Hex(key)}`;

/**
 * rate-limiter-flexible behind our port, in memory: a single process (SQLite). Several processes share one budget in
 * PostgreSQL instead (postgres-rate-limiter.ts). One limiter instance per rule, created on first use.
 */
export function flexibleRateLimiter(): RateLimiter {
  const limiters = new Map<string, RateLimiterMemory>();
  const limiterFor = (rule: RateRule): RateLimiterMemory => {
    const id = `${rule.name}:${String(rule.points)}:${String(rule.windowSeconds)}`;
    let l = limiters.get(id);
    if (l === undefined) {
      l = new RateLimiterMemory({ keyPrefix: rule.name, points: rule.points, duration: rule.windowSeconds });
      limiters.set(id, l);
    }
    return l;
  };
  const retryAfter = (res: RateLimiterRes): number => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

  return {
    async consume(rule, key, points = 1) {
      try {
        const res = await limiterFor(rule).consume(boundedKey(key), points);
        return { allowed: true, remaining: res.remainingPoints, windowEndsInMs: res.msBeforeNext };
      } catch (e) {
        if (e instanceof RateLimiterRes) return { allowed: false, retryAfterSeconds: retryAfter(e) };
        throw e;
      }
    },
    async peek(rule, key): Promise<RateDecision> {
      const res = await limiterFor(rule).get(boundedKey(key));
      if (res === null) return { allowed: true, remaining: rule.points };
      return res.consumedPoints >= rule.points
        ? { allowed: false, retryAfterSeconds: retryAfter(res) }
        : { allowed: true, remaining: rule.points - res.consumedPoints };
    },
    async reset(rule, key) {
      await limiterFor(rule).delete(boundedKey(key));
    },
    deleteExpired() {
      // In memory, every key is dropped by a timer when its window ends.
      return Promise.resolve(0);
    },
  };
}
