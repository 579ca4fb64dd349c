import type { RateDecision, RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';

interface Held {
  left: number;
  /** What the shared store had left after this chunk was taken. */
  remaining: number;
  /** The end of the store's window the chunk was counted in: past it, what is left is not spent. */
  until: number;
}

/** Within one window of the store: fewer points left than a chunk (taken one at a time), or none. */
interface Low {
  readonly left: 'under-a-chunk' | 'none';
  /** The end of that window. */
  readonly until: number;
}

/**
 * Budgets whose rule has a `chunk` are taken from the shared store that many points at a time and handed out here,
 * one per request: a busy credential on PostgreSQL costs one statement per chunk instead of one per request. Never
 * more than the budget is allowed across all processes — a chunk is counted in the store before any of it is spent,
 * and what is left of it when the store's window ends is dropped. Once a chunk no longer fits, the rest of the window
 * is taken a point at a time (a refused chunk spends nothing, decision 0150), so only points another process took
 * and did not need go unspent; once a point does not fit either, the budget is spent until the window ends and is
 * refused here, with no statement. Rules without a chunk (failure counters, sign-in) go to the store point by point.
 */
export function chunkedBudgets(inner: RateLimiter, now: () => number = Date.now): RateLimiter {
  const held = new Map<string, Held>();
  const low = new Map<string, Low>();
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
      const l = low.get(id);
      if (l !== undefined && l.until <= now()) low.delete(id);
      else if (l?.left === 'none')
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((l.until - now()) / 1000)) };
      // One take from the store at a time per budget: callers arriving meanwhile wait for it and then take from it.
      const running = refilling.get(id);
      if (running !== undefined) {
        await running;
        continue;
      }
      held.delete(id);
      const size = low.has(id) ? 1 : Math.min(rule.chunk ?? 1, rule.points);
      const refill = (async (): Promise<RateDecision> => {
        const taken = await inner.consume(rule, key, size);
        const ends =
          taken.windowEndsInMs ?? (taken.allowed ? rule.windowSeconds : taken.retryAfterSeconds) * 1000;
        const until = now() + Math.max(1, ends);
        if (taken.allowed) held.set(id, { left: size, remaining: taken.remaining, until });
        else low.set(id, { left: size > 1 ? 'under-a-chunk' : 'none', until });
        return taken;
      })().finally(() => refilling.delete(id));
      refilling.set(id, refill);
      await refill;
    }
  };

  return {
    consume(rule, key, points = 1) {
      return (rule.chunk ?? 1) > 1 && points === 1 ? spend(rule, key) : inner.consume(rule, key, points);
    },
    peek: (rule, key) => inner.peek(rule, key),
    async reset(rule, key) {
      held.delete(idOf(rule, key));
      low.delete(idOf(rule, key));
      await inner.reset(rule, key);
    },
    deleteExpired: (before) => inner.deleteExpired(before),
  };
}
