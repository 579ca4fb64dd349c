export interface RateRule {
  /** Distinguishes rules sharing a store (e.g. `api`, `signin-ip`). */
  readonly name: string;
  readonly points: number;
  readonly windowSeconds: number;
  /**
   * A budget of requests (not of failures) may be taken from a shared store this many points at a time and handed
   * out by one process (`chunkedBudgets`): one database statement per chunk instead of per request. Absent or 1:
   * every point is counted in the store as it is spent.
   */
  readonly chunk?: number;
}

export type RateDecision =
  | {
      readonly allowed: true;
      readonly remaining: number;
      /** Spending: when the window the points were counted in ends. */
      readonly windowEndsInMs?: number;
    }
  | {
      readonly allowed: false;
      readonly retryAfterSeconds: number;
      /** Where the store knows it: when the window that refused ends, to the millisecond. */
      readonly windowEndsInMs?: number;
      /** Where the store knows it: the points left in that window, fewer than were asked for. */
      readonly remaining?: number;
      /**
       * More points were asked for than the rule's whole budget: no window takes them (`retryAfterSeconds` is then a
       * window's length, not a promise); only a smaller request can be allowed.
       */
      readonly exceedsBudget?: true;
    };

/**
 * Fixed-window counters. Atomic per key: of N concurrent consumers of a budget of P, exactly P are allowed,
 * also across processes when the store is shared (PostgreSQL).
 */
export interface RateLimiter {
  /**
   * Spends `points` (default 1) at once: all of them or, refused, none — what was left stays for a smaller request
   * (decision 0150). More than the rule's whole budget is refused without a count.
   */
  consume(rule: RateRule, key: string, points?: number): Promise<RateDecision>;
  /** Reads the budget without spending it. */
  peek(rule: RateRule, key: string): Promise<RateDecision>;
  reset(rule: RateRule, key: string): Promise<void>;
  /**
   * The housekeeping sweep (decision 0065): forgets the counters of windows that ended before `before`, of every rule
   * and key, where the store keeps them until asked (a store that drops them itself has nothing to do). How many.
   */
  deleteExpired(before: Date): Promise<number>;
}

/**
 * The chunk for an agent's request budget: a twentieth of it (at least 1), so a process holds at most 5% of a
 * window's budget that others cannot spend, and a busy credential costs the shared store one statement per 5% of it.
 */
export function requestChunk(points: number): number {
  return Math.max(1, Math.floor(points / 20));
}

/**
 * An agent surface's budget per credential and minute (`mcp`, `api`), taken in chunks (`requestChunk`). One definition,
 * so a download counted against the credential its link was issued to spends the same budget as its tool calls.
 */
export function agentRequestRule(name: 'mcp' | 'api', perMinute: number): RateRule {
  return { name, points: perMinute, windowSeconds: 60, chunk: requestChunk(perMinute) };
}
