import type { RateDecision, RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';

interface Held {
  left: number;
  /** What the shared store had left after this chunk was taken. */
  remaining: number;
  /** The end of the store's window the chunk was counted in: past it, what is left is not spent. */
  until: number;
}

/**
 * Budgets whose rule has a `chunk` are taken from the shared store that many points at a time and handed out here,
 * one per request: a busy credential on PostgreSQL costs one statement per chunk instead of one per request. Never
 * more than the budget is allowed across all processes — a chunk is counted in the store before any of it is spent,
 * and what is left of it when the store's window ends is dropped — but up to `chunk − 1` points per process may go
 * unspent in a window (taken and not needed, or a last chunk refused for want of a full one). Rules without a chunk
 * (failure counters, sign-in) go to the store point by point, as before.
 */
export function chunkedBudgets(inner: RateLimiter, now: () => number = Date.now): RateLimiter {
  const held = new Map<string, Held>();
  const refilling = new Map<string, Promise<RateDecision>>();
  const idOf = (rule: RateRule, key: string) =>
    `${rule.name}:${String(rule.points)}:${String(rule.windowSeconds)}\u0000${key}`;

  const spend = async (rule: RateRule, key: string): Promise<RateDecision> => {
    const id = idOf(rule, key);
    for (;;) {
      const h = held.get(id);
      if (h !== undefined && h.left > 0 && h.until > now()) {
        h.left--;
        return { allowed: true, remaining: h.remaining + h.left, windowEndsInMs: h.until - now() };
      }
      // One refill at a time per budget: callers arriving meanwhile wait for it and then take from it.
      const running = refilling.get(id);
      if (running !== undefined) {
        const refused = await running;
        if (!refused.allowed) return refused;
        continue;
      }
      held.delete(id);
      const refill = (async (): Promise<RateDecision> => {
        const size = Math.min(rule.chunk ?? 1, rule.points);
        // A chunk refused spends nothing, and the points left in the window stay unspent by this process (the slack).
        const taken = await inner.consume(rule, key, size);
        if (taken.allowed)
          held.set(id, {
            left: size,
            remaining: taken.remaining,
            until: now() + (taken.windowEndsInMs ?? rule.windowSeconds * 1000),
          });
        return taken;
      })().finally(() => refilling.delete(id));
      refilling.set(id, refill);
      const refused = await refill;
      if (!refused.allowed) return refused;
    }
  };

  return {
    consume(rule, key, points = 1) {
      return (rule.chunk ?? 1) > 1 && points === 1 ? spend(rule, key) : inner.consume(rule, key, points);
    },
    peek: (rule, key) => inner.peek(rule, key),
    async reset(rule, key) {
      held.delete(idOf(rule, key));
      await inner.reset(rule, key);
    },
    deleteExpired: (before) => inner.deleteExpired(before),
  };
}
