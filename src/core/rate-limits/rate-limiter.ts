export interface RateRule {
  /** Distinguishes rules sharing a store (e.g. `api`, `signin-ip`). */
  readonly name: string;
  readonly points: number;
  readonly windowSeconds: number;
}

export type RateDecision =
  | { readonly allowed: true; readonly remaining: number }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * Fixed-window counters. Atomic per key: of N concurrent consumers of a budget of P, exactly P are allowed,
 * also across processes when the store is shared (PostgreSQL).
 */
export interface RateLimiter {
  consume(rule: RateRule, key: string): Promise<RateDecision>;
  /** Reads the budget without spending it. */
  peek(rule: RateRule, key: string): Promise<RateDecision>;
  reset(rule: RateRule, key: string): Promise<void>;
}
