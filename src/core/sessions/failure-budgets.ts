import type { RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';

/** Lockouts grow (decision 0025): the n-th within a day holds for the rule's window × 2^(n−1), at most a day. */
const DAY_SECONDS = 24 * 3600;
const HOLD_LEVELS = 8;
export const lockoutsOf = (rule: RateRule): RateRule => ({
  name: `${rule.name}-lockouts`,
  points: 1_000_000,
  windowSeconds: DAY_SECONDS,
});
const holdOf = (rule: RateRule, level: number): RateRule => ({
  name: `${rule.name}-hold${String(level)}`,
  points: 1,
  windowSeconds: Math.min(rule.windowSeconds * 2 ** (level - 1), DAY_SECONDS),
});

/** Seconds until every budget and hold of these keys allows a try again; 0 when they do now. */
export async function heldFor(
  limiter: RateLimiter,
  rules: readonly (readonly [RateRule, string])[],
): Promise<number> {
  let wait = 0;
  for (const [rule, key] of rules) {
    const base = await limiter.peek(rule, key);
    if (!base.allowed) wait = Math.max(wait, base.retryAfterSeconds);
    // Only the hold of the key's latest lockout can still be running: each one outlasts the one before.
    const counted = await limiter.peek(lockoutsOf(rule), key);
    const lockouts = counted.allowed ? lockoutsOf(rule).points - counted.remaining : HOLD_LEVELS;
    if (lockouts < 2) continue;
    const hold = await limiter.peek(holdOf(rule, Math.min(lockouts, HOLD_LEVELS)), key);
    if (!hold.allowed) wait = Math.max(wait, hold.retryAfterSeconds);
  }
  return wait;
}

/**
 * Spends one failure; the one that spends the last of a budget is a lockout, and a key's second lockout within a
 * day holds it twice as long as the window, its third four times, and so on up to a day.
 */
export async function spendFailure(limiter: RateLimiter, rule: RateRule, key: string): Promise<void> {
  const d = await limiter.consume(rule, key);
  if (d.allowed && d.remaining > 0) return;
  const counted = await limiter.consume(lockoutsOf(rule), key);
  const lockouts = counted.allowed ? lockoutsOf(rule).points - counted.remaining : HOLD_LEVELS;
  if (lockouts >= 2) await limiter.consume(holdOf(rule, Math.min(lockouts, HOLD_LEVELS)), key);
}
