import type pg from 'pg';
import { LazyModule } from '../lazy-module.ts';

const pgModule = new LazyModule<typeof pg>('pg');

/** A statement PostgreSQL neither answered nor cancelled within the deadline; its connection was dropped. */
export class DatabaseDeadlineError extends Error {
  override readonly name = 'DatabaseDeadlineError';
  readonly deadlineMs: number;
  constructor(deadlineMs: number) {
    super(`PostgreSQL did not answer within DATABASE_QUERY_TIMEOUT_SECONDS (${String(deadlineMs / 1000)} s)`);
    this.deadlineMs = deadlineMs;
  }
}

/**
 * How much longer than the deadline the client waits for an answer. PostgreSQL itself cancels a statement at the
 * deadline (`statement_timeout`, set on every session by `readySession`) and says so at once; a client still waiting
 * after this grace hears nothing from the server at all.
 */
export const SILENCE_GRACE_MS = 2_000;

type Callback = (err: Error | null, result?: unknown) => void;

/**
 * A pg `Client` whose statements give up `SILENCE_GRACE_MS` after `deadlineMs` (decision 0063). A node cut off from
 * PostgreSQL without a word — the network between them broken, the database's machine frozen — otherwise waits for
 * its own TCP to give up, about 15 minutes on Linux (`tcp_retries2`), and so does every request and every lock wait on
 * it. Given up, the statement is answered with `DatabaseDeadlineError` and the connection is destroyed: a connection
 * whose answer may still come cannot be handed to anyone else, and the pool discards an ended one.
 *
 * Bounds the promise form (Kysely, the lock sessions) and the callback form (`pool.query`); a submittable (a cursor)
 * is passed through unbounded — the service streams no query.
 */
export function clientWithDeadline(deadlineMs: number): typeof pg.Client {
  const Base = pgModule.load().Client;
  class DeadlineClient extends Base {
    // The overloads of `query` are many; every form is handled below and returns what the base returns.
    override query(...args: unknown[]): never {
      const base = super.query.bind(this) as (...a: unknown[]) => unknown;
      const last = args.at(-1);
      if (typeof last === 'function') {
        let settled = false;
        const reply = (err: Error | null, result?: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          (last as Callback)(err, result);
        };
        const timer = setTimeout(() => {
          this.drop();
          reply(new DatabaseDeadlineError(deadlineMs));
        }, deadlineMs + SILENCE_GRACE_MS);
        return base(...args.slice(0, -1), reply) as never;
      }
      const pending = base(...args);
      if (!(pending instanceof Promise)) return pending as never;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          this.drop();
          reject(new DatabaseDeadlineError(deadlineMs));
        }, deadlineMs + SILENCE_GRACE_MS);
      });
      // The race listens to both: the statement's own failure after the deadline goes nowhere.
      return Promise.race([pending, late]).finally(() => {
        clearTimeout(timer);
      }) as never;
    }

    /**
     * Ends the session at once: `end()` marks the client ending before it returns (the pool then discards it rather
     * than hand it out again) and, with a statement in flight, destroys the socket rather than say goodbye.
     */
    private drop(): void {
      this.end().catch(() => undefined);
    }
  }
  return DeadlineClient;
}

/**
 * Pool options bounded by `deadlineMs` on the client's side (decision 0063): a statement is given up
 * `SILENCE_GRACE_MS` after the deadline (above); the wait for a free connection and the connecting itself are bounded
 * by the deadline (`connectionTimeoutMillis`). The server's side, `statement_timeout`, is set on each session by
 * `readySession` (after connecting, not in the start-up packet, which PgBouncer refuses). `deadlineMs` 0: none of it.
 */
export function withDeadline(config: pg.PoolConfig, deadlineMs: number): pg.PoolConfig {
  if (deadlineMs <= 0) return config;
  return {
    ...config,
    Client: clientWithDeadline(deadlineMs),
    connectionTimeoutMillis: deadlineMs,
  };
}
