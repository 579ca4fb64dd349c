import type pg from 'pg';
import { LazyModule } from '../lazy-module.ts';

const pgModule = new LazyModule<typeof pg>('pg');
import type { InboxClaims } from '../../core/jobs/inbox-claims.ts';

const APP = 'inbox-triage-watch';

/**
 * Inbox claims as PostgreSQL session advisory locks on one dedicated connection per node (decision 0024). A node
 * that dies or loses its connection loses every claim with its session, at once, and PostgreSQL frees them for the
 * others; the nodes present are the sessions carrying this application name in this database.
 */
export class PgInboxClaims implements InboxClaims {
  private readonly connectionString: string;
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly listeners: (() => void)[] = [];

  constructor(connectionString: string) {
    this.connectionString = connectionString;
  }

  private session(): Promise<pg.Client> {
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const c = new (pgModule.load().Client)({
        connectionString: this.connectionString,
        application_name: APP,
      });
      const drop = () => {
        if (this.client === c) {
          this.client = undefined;
          for (const l of this.listeners) l();
        }
      };
      c.on('error', drop);
      c.on('end', drop);
      try {
        await c.connect();
        this.client = c;
        return c;
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  async nodes(): Promise<number> {
    const c = await this.session();
    const r = await c.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
      [APP],
    );
    return Math.max(1, Number(r.rows[0]?.n ?? 1));
  }

  async claim(inboxId: string): Promise<boolean> {
    const c = await this.session();
    const r = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [
      `watch:${inboxId}`,
    ]);
    return r.rows[0]?.ok === true;
  }

  async release(inboxId: string): Promise<void> {
    const c = this.client;
    if (c === undefined) return;
    await c
      .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`watch:${inboxId}`])
      .catch(() => undefined);
  }

  onLost(listener: () => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined; // a deliberate end is not a loss: no listener is told

    await c?.end().catch(() => undefined);
  }
}
