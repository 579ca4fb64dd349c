import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { RateLimiter, RateRule } from './rate-limiter.ts';

/** `second` is another limiter on the same store (another process, for shared stores), or the same one. */
export function rateLimiterContract(
  h: () => { first: RateLimiter; second: RateLimiter; shared: boolean },
): void {
  describe('RateLimiter contract', () => {
    const rule = (points: number): RateRule => ({
      name: `t${newId('r').slice(2, 10)}`,
      points,
      windowSeconds: 60,
    });

    it('allows exactly `points` of many concurrent consumers, then answers retry-after', async () => {
      const r = rule(5);
      const decisions = await Promise.all(Array.from({ length: 20 }, () => h().first.consume(r, 'k')));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
      const retries = decisions.flatMap((d) => (d.allowed ? [] : [d.retryAfterSeconds]));
      expect(retries).toHaveLength(15);
      expect(Math.min(...retries)).toBeGreaterThanOrEqual(1);
      expect(Math.max(...retries)).toBeLessThanOrEqual(60);
    });

    it('forgets in a sweep only the windows that ended before it', async () => {
      const running = rule(2);
      const short: RateRule = { ...rule(2), windowSeconds: 1 };
      await h().first.consume(running, 'w', 2);
      await h().first.consume(short, 'w', 2);
      // Swept as if from 2 s on: the 1 s window has ended by then, the minute's has not.
      await h().first.deleteExpired(new Date(Date.now() + 2_000));
      expect((await h().first.peek(running, 'w')).allowed).toBe(false);
      await h().first.deleteExpired(new Date());
      expect((await h().first.peek(running, 'w')).allowed).toBe(false);
    });

    it('keeps keys apart, peeks without spending, and resets', async () => {
      const r = rule(2);
      await h().first.consume(r, 'a');
      expect(await h().first.peek(r, 'a')).toEqual({ allowed: true, remaining: 1 });
      expect(await h().first.peek(r, 'a')).toEqual({ allowed: true, remaining: 1 });
      expect(await h().first.peek(r, 'b')).toEqual({ allowed: true, remaining: 2 });
      await h().first.consume(r, 'a');
      expect((await h().first.peek(r, 'a')).allowed).toBe(false);
      await h().first.reset(r, 'a');
      expect(await h().first.peek(r, 'a')).toEqual({ allowed: true, remaining: 2 });
    });

    it('takes a key of any length (what someone typed) and keeps long keys apart', async () => {
      const r = rule(1);
      const long = (c: string) => `${'\u{1D54F}'.repeat(400)}${c}`; // 𝕏: two UTF-16 units, one character
      expect((await h().first.consume(r, long('a'))).allowed).toBe(true);
      expect((await h().first.consume(r, long('a'))).allowed).toBe(false);
      expect((await h().first.peek(r, long('b'))).allowed).toBe(true);
      await h().first.reset(r, long('a'));
      expect((await h().first.peek(r, long('a'))).allowed).toBe(true);
    });

    it('spends several points at once, or none of a refused request', async () => {
      const r = rule(10);
      expect(await h().first.consume(r, 'm', 6)).toMatchObject({ allowed: true, remaining: 4 });
      const refused = await h().first.consume(r, 'm', 6);
      expect(refused.allowed).toBe(false);
      expect(refused.allowed || refused.retryAfterSeconds).toBeGreaterThan(0);
      expect(refused.allowed || refused.retryAfterSeconds).toBeLessThanOrEqual(60);
      // It says what is left (decision 0153): the refused six spent none of the four.
      expect(refused).toMatchObject({ remaining: 4 });
      expect(refused).not.toHaveProperty('exceedsBudget');
      expect(await h().first.consume(r, 'm', 4)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await h().first.consume(r, 'm', 2)).toMatchObject({ allowed: false, remaining: 0 });
      expect(await h().first.consume(r, 'm')).toMatchObject({ allowed: false, remaining: 0 });
      // More than the whole budget never fits, is said to, and counts nothing.
      expect(await h().first.consume(r, 'o', 11)).toMatchObject({ allowed: false, exceedsBudget: true });
      expect(await h().first.consume(r, 'o', 10)).toMatchObject({ allowed: true, remaining: 0 });
      const spent = await h().first.consume(r, 'n', 3);
      expect(spent).toMatchObject({ allowed: true, remaining: 7 });
      expect(spent.allowed && spent.windowEndsInMs).toBeGreaterThan(0);
      expect(spent.allowed && spent.windowEndsInMs).toBeLessThanOrEqual(60_000);
    });

    it('shares one budget across limiter instances when the store is shared', async () => {
      const r = rule(4);
      const decisions = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? h().first : h().second).consume(r, 'shared')),
      );
      const allowed = decisions.filter((d) => d.allowed).length;
      expect(allowed).toBe(h().shared ? 4 : 4 + 4);
    });
  });
}
