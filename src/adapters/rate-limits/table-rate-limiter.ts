import { sql } from 'kysely';
import type { RateDecision, RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/secret-token.ts';
import type { Db } from '../storage/database.ts';

/**
 * The longest key kept as it is. `rate_limits.key` is varchar(255) and holds the rule's name, a colon and the key; a
 * key can be what someone typed (the address a sign-in was tried for, whatever it is), and one past the column failed
 * the request with a database error (found by the fuzzer: 400 characters typed as an email on the sign-in page). A
 * longer key is its SHA-256 instead, the same for the same key.
 */
const MAX_KEY_CHARS = 180;
const boundedKey = (key: string): string => (key.length <= MAX_KEY_CHARS ? key : `sha256:${sha256Hex(key)}`);

/** PostgreSQL answers a bigint as a string. */
interface Row {
  readonly points: number | string;
  readonly expire: number | string;
}

/**
 * Fixed windows in the table `rate_limits`, on either engine (decisions 0129, 0147): one row per rule and key, the
 * points counted in the window and when it ends, in milliseconds. The first count after a window ended starts a new
 * one; every count is one statement, so of many at once exactly the budget is allowed — on PostgreSQL across every
 * process on the database, on SQLite across the service's restarts (a day's budget does not start again).
 *
 * Time comes from `clock`, on PostgreSQL the cluster's (`DatabaseClock`): a window one node opened is seen to end at
 * the same moment by every node. (rate-limiter-flexible's store, used before, read `Date.now()`: a node an hour ahead
 * reset every window it counted in, and its windows then lasted an hour on the others.) The table keeps that
 * library's layout, so rows written before the change count on.
 */
export function tableRateLimiter(db: Db, clock: Clock): RateLimiter {
  const rowKey = (rule: RateRule, key: string) => `${rule.name}:${boundedKey(key)}`;
  const retryAfter = (expire: number, now: number) => Math.max(1, Math.ceil((expire - now) / 1000));
  return {
    async consume(rule, key, points = 1): Promise<RateDecision> {
      // More than the whole budget never fits: refused without a count.
      if (points > rule.points) return { allowed: false, retryAfterSeconds: rule.windowSeconds, exceedsBudget: true };
      const now = clock.now().getTime();
      const end = now + rule.windowSeconds * 1000;
      // Several points are counted only if they all fit (`WHERE`: the row is then left as it was, and no row comes
      // back), so a refused request spends none of what is left — a call asking for three new labels when two are
      // left still leaves those two. One point refused is counted: the budget is already spent, so the count past it
      // changes no answer, and a flood of refused requests costs one statement each.
      const fits =
        points > 1
          ? sql`WHERE rate_limits.expire <= ${now} OR rate_limits.points + ${points} <= ${rule.points}`
          : sql``;
      const { rows } = await sql<Row>`
        INSERT INTO rate_limits (key, points, expire) VALUES (${rowKey(rule, key)}, ${points}, ${end})
        ON CONFLICT (key) DO UPDATE SET
          points = CASE WHEN rate_limits.expire <= ${now} THEN ${points} ELSE rate_limits.points + ${points} END,
          expire = CASE WHEN rate_limits.expire <= ${now} THEN ${end} ELSE rate_limits.expire END
        ${fits}
        RETURNING points, expire`.execute(db.kysely);
      const row = rows[0];
      if (row === undefined) {
        if (points <= 1) throw new Error('rate_limits: the upsert returned no row');
        // Refused: what is left and when the window it did not fit in ends (a read of the row this statement left
        // alone; counts made since may have taken more of it).
        const { rows: open } = await sql<Row>`
          SELECT points, expire FROM rate_limits WHERE key = ${rowKey(rule, key)}`.execute(db.kysely);
        const [ends, at] = [Number(open[0]?.expire ?? 0), clock.now().getTime()];
        return {
          allowed: false,
          retryAfterSeconds: retryAfter(ends, at),
          windowEndsInMs: Math.max(0, ends - at),
          remaining: Math.max(0, Math.min(points - 1, rule.points - Number(open[0]?.points ?? rule.points))),
        };
      }
      // Read again: a count begun after this one may have opened the window first, its end later than `now` allows.
      const after = clock.now().getTime();
      const counted = Number(row.points);
      const expire = Number(row.expire);
      return counted > rule.points
        ? {
            allowed: false,
            retryAfterSeconds: retryAfter(expire, after),
            windowEndsInMs: Math.max(0, expire - after),
            remaining: 0,
          }
        : { allowed: true, remaining: rule.points - counted, windowEndsInMs: Math.max(0, expire - after) };
    },
    async peek(rule, key): Promise<RateDecision> {
      const now = clock.now().getTime();
      const { rows } = await sql<Row>`
        SELECT points, expire FROM rate_limits WHERE key = ${rowKey(rule, key)} AND expire > ${now}`.execute(
        db.kysely,
      );
      const row = rows[0];
      if (row === undefined) return { allowed: true, remaining: rule.points };
      const counted = Number(row.points);
      return counted >= rule.points
        ? { allowed: false, retryAfterSeconds: retryAfter(Number(row.expire), now) }
        : { allowed: true, remaining: rule.points - counted };
    },
    async reset(rule, key) {
      await sql`DELETE FROM rate_limits WHERE key = ${rowKey(rule, key)}`.execute(db.kysely);
    },
    async deleteExpired(before) {
      // A row stays until deleted: one per client address that ever asked and per credential (decision 0065).
      const r = await sql`DELETE FROM rate_limits WHERE expire < ${before.getTime()}`.execute(db.kysely);
      return Number(r.numAffectedRows ?? 0);
    },
  };
}
