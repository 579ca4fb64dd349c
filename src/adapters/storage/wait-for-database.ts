import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db } from './database.ts';
import { DatabaseDeadlineError } from './pg-deadline.ts';

/** The database did not accept connections within the wait, or refused in a way waiting does not mend. */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

/** The wait was ended by a stop asked for (SIGTERM) before the database answered. */
export class DatabaseWaitStopped extends Error {
  override readonly name = 'DatabaseWaitStopped';
}

/** Network failures on the way to the server: it is not up yet, or not reachable yet (a container's name not yet in DNS). */
const NOT_YET_REACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * True when trying again later may succeed: the server is not listening or not reachable yet, is starting up or
 * shutting down (SQLSTATE 57P03), has no connection slot free (53300), closed the connection before answering, or
 * did not answer within the deadline (decision 0063).
 * Wrong credentials (28xxx), a missing database (3D000) or a bad URL are settings, not timing: they stop at once.
 */
export function isNotYetAvailable(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  if (e instanceof DatabaseDeadlineError) return true;
  const code = 'code' in e && typeof e.code === 'string' ? e.code : undefined;
  if (code !== undefined)
    return NOT_YET_REACHABLE.has(code) || code === '57P03' || code === '53300' || code.startsWith('08');
  // node-postgres gives no code when the server closes the socket before it answered (a server still starting).
  return e instanceof Error && /^Connection terminated/.test(e.message);
}

export interface WaitOptions {
  /** How long to keep trying; 0 tries once. */
  readonly waitMs: number;
  /** Aborted when the process is asked to stop: the wait ends with `DatabaseWaitStopped`. */
  readonly signal?: AbortSignal | undefined;
  /** Told before each pause, with what the last attempt met. */
  readonly onWait?: (w: { attempt: number; reason: string; retryInMs: number }) => void;
}

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;

/**
 * Waits until the database answers a query, trying again with growing pauses (250 ms doubling to 5 s, each with up
 * to a fifth more at random, so nodes started together do not knock in step) while it is not yet available. SQLite
 * is a file this process opens: nothing to wait for. Decision 0057.
 */
export async function waitForDatabase(db: Db, o: WaitOptions): Promise<void> {
  if (db.dialect === 'sqlite') return;
  const started = Date.now();
  let pause = FIRST_PAUSE_MS;
  for (let attempt = 1; ; attempt++) {
    if (o.signal?.aborted === true) throw new DatabaseWaitStopped('stopped while waiting for the database');
    try {
      await sql`select 1`.execute(db.kysely);
      return;
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      if (!isNotYetAvailable(e) || o.waitMs === 0)
        throw new DatabaseUnavailableError(`could not connect to the database: ${reason}`);
      const retryInMs = Math.round(pause * (1 + Math.random() / 5));
      if (Date.now() - started + retryInMs > o.waitMs)
        throw new DatabaseUnavailableError(
          `the database did not accept connections within ${String(Math.round(o.waitMs / 1000))} s ` +
            `(DATABASE_WAIT_SECONDS): ${reason}`,
        );
      o.onWait?.({ attempt, reason, retryInMs });
      try {
        await sleep(retryInMs, undefined, { signal: o.signal });
      } catch {
        throw new DatabaseWaitStopped('stopped while waiting for the database');
      }
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
