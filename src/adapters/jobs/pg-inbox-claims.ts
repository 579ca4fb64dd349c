import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { LazyModule } from '../lazy-module.ts';

const pgModule = new LazyModule<typeof pg>('pg');
import type { InboxClaims } from '../../core/jobs/inbox-claims.ts';
import { PEER_CHECK_SQL } from '../storage/pg-peer-check.ts';

/** The application name of every node's watch session: the nodes present are the sessions carrying it. */
export const WATCH_APPLICATION_NAME = 'inbox-triage-watch';

/** The nodes running on the database, counted by their watch sessions (`n`); `$1` is WATCH_APPLICATION_NAME. */
export const COUNT_NODES_SQL =
  'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()';

/**
 * Inbox claims as PostgreSQL session advisory locks on one dedicated connection per node (decision 0024). A node
 * that dies or loses its connection loses every claim with its session, at once, and PostgreSQL frees them for the
 * others; the nodes present are the sessions carrying this application name in this database.
 *
 * A connection can also go quiet without closing (the network between node and database broken): the server then
 * ends the session after ~25 s without answers (pg-peer-check.ts) and frees the claims. This node must stop watching
 * first, so a question the session leaves unanswered for `answerWithinMs` (10 s; the scheduler asks every 5 s) counts
 * as the session lost (decision 0058).
 */
export class PgInboxClaims implements InboxClaims {
  private readonly connectionString: string;
  private readonly answerWithinMs: number;
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly listeners: (() => void)[] = [];

  constructor(connectionString: string, opts: { answerWithinMs?: number } = {}) {
    this.connectionString = connectionString;
    this.answerWithinMs = opts.answerWithinMs ?? 10_000;
  }

  /** The claims are gone with the session: every listener is told once, and the connection is let go. */
  private lose(c: pg.Client): void {
    if (this.client !== c) return;
    this.client = undefined;
    for (const l of this.listeners) l();
    void c.end().catch(() => undefined);
  }

  /** A query on the session; one it leaves unanswered too long ends it. */
  private async ask<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    const c = await this.session();
    return this.answered(c.query<R>(text, values), () => {
      this.lose(c);
    });
  }

  /** The answer, or a rejection once `answerWithinMs` passed without one (after `onSilence`). */
  private async answered<T>(answer: Promise<T>, onSilence: () => void): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        onSilence();
        reject(new Error(`the watch session gave no answer within ${String(this.answerWithinMs)} ms`));
      }, this.answerWithinMs);
    });
    answer.catch(() => undefined); // after a timeout, the connection's end rejects it: nobody is waiting any more
    try {
      return await Promise.race([answer, silence]);
    } finally {
      clearTimeout(timer);
    }
  }

  private session(): Promise<pg.Client> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const c = new (pgModule.load().Client)({
        connectionString: this.connectionString,
        application_name: WATCH_APPLICATION_NAME,
        connectionTimeoutMillis: this.answerWithinMs,
      });
      const drop = () => {
        this.lose(c);
      };
      c.on('error', drop);
      c.on('end', drop);
      try {
        await c.connect();
        await this.answered(c.query(PEER_CHECK_SQL), () => undefined).catch((e: unknown) => {
          void c.end().catch(() => undefined);
          throw e;
        });
        this.client = c;
        return c;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  async nodes(): Promise<number> {
    const r = await this.ask<{ n: string }>(COUNT_NODES_SQL, [WATCH_APPLICATION_NAME]);
    return Math.max(1, Number(r.rows[0]?.n ?? 1));
  }

  async claim(inboxId: string): Promise<boolean> {
    const r = await this.ask<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [
      `watch:${inboxId}`,
    ]);
    return r.rows[0]?.ok === true;
  }

  async release(inboxId: string): Promise<void> {
    if (this.client === undefined) return; // the session is gone, and its claims with it
    await this.ask('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`watch:${inboxId}`]).catch(
      () => undefined,
    );
  }

  onLost(listener: () => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined; // a deliberate end is not a loss: no listener is told
    // Over a broken network the goodbye is never answered: the process may exit anyway.
    await Promise.race([
      c?.end().catch(() => undefined),
      sleep(this.answerWithinMs, undefined, { ref: false }),
    ]);
  }
}
