import type pg from 'pg';
import { LazyModule } from '../lazy-module.ts';

const pgModule = new LazyModule<typeof pg>('pg');

/** How many clients the check holds in a transaction at most, one more each round (see `sessionsShared`). */
const ROUNDS = 8;

/**
 * A pooler between the service and PostgreSQL that hands one database session to many clients — PgBouncer's
 * `pool_mode = transaction` or `statement`, a provider's "pooled" connection string — refused at start
 * (decision 0131). The service keeps locks for as long as a session lasts: an inbox's watcher claim and its action
 * lock (decision 0024). Behind such a pooler a lock lands on whichever server session ran the statement, stays
 * there when the client moves on, and is seen by the next client that session serves as its own: two nodes change
 * one inbox at once, two watch it.
 */
export class SharedSessionsError extends Error {
  constructor(how: string) {
    super(
      `DATABASE_URL reaches PostgreSQL through a connection pooler that shares one database session among its clients ` +
        `(${how}): PgBouncer with pool_mode = transaction or statement, or a provider's "pooled" or "transaction" ` +
        `connection string. The service holds locks for as long as its sessions last (one node at a time changes an ` +
        `inbox, one watches it), and such a pooler hands them to other clients. Connect directly, or through ` +
        `session pooling (PgBouncer pool_mode = session).`,
    );
    this.name = 'SharedSessionsError';
  }
}

/**
 * Whether the sessions `pool` reaches may be another client's, and how that showed (`undefined`: each client keeps
 * its own). Asked once at start, on one of the pool's connections and, behind a pooler, on connections of its own to
 * `url`, each statement bounded by `statementTimeoutMs`.
 *
 * A direct connection says so at once: the process id PostgreSQL announced at connect time (the key a cancel
 * request names) is the session's own `pg_backend_pid()`; a pooler announces a key of its own. Behind a pooler, one
 * client (A) reads its session's process id, and then, round by round, one more client opens a transaction and reads
 * its own, and A reads its again. Where sessions are each client's, A's never changes and nobody else sees it. Where
 * a session serves whoever is next, the next transaction is given A's session as soon as it is idle (PgBouncer reuses
 * the session used last), or A is given another; each round holds one more session busy, so a pooler that hands out
 * its idle sessions in turn comes to A's within as many rounds as it keeps idle (up to `ROUNDS`). A pooler that
 * refuses transactions pools each statement.
 */
export async function sessionsShared(
  pool: pg.Pool,
  url: string,
  statementTimeoutMs: number,
): Promise<string | undefined> {
  const c = await pool.connect();
  let direct: boolean;
  try {
    direct = announcedProcess(c) === (await pid(c));
  } finally {
    c.release();
  }
  return direct ? undefined : await rounds(url, statementTimeoutMs);
}

function announcedProcess(c: pg.ClientBase): unknown {
  // Set by pg from the BackendKeyData message; not in @types/pg.
  return (c as unknown as { processID: unknown }).processID;
}

async function pid(c: pg.ClientBase): Promise<number> {
  return Number((await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
}

async function rounds(url: string, statementTimeoutMs: number): Promise<string | undefined> {
  const open: pg.Client[] = [];
  const connect = async () => {
    const c = new (pgModule.load().Client)({
      connectionString: url,
      application_name: 'inbox-triage-session-check',
      connectionTimeoutMillis: statementTimeoutMs,
      ...(statementTimeoutMs > 0 && { query_timeout: statementTimeoutMs }),
    });
    c.on('error', () => undefined);
    open.push(c);
    await c.connect();
    return c;
  };
  try {
    const a = await connect();
    const first = await pid(a);
    for (let round = 0; round < ROUNDS; round++) {
      const b = await connect();
      try {
        await b.query('BEGIN');
      } catch (e) {
        return `it refused a transaction: ${e instanceof Error ? e.message : String(e)}`;
      }
      if ((await pid(b)) === first) return 'another client was given the session of the first';
      if ((await pid(a)) !== first) return 'one client was given another session between two statements';
    }
    return undefined;
  } finally {
    await Promise.all(open.map((c) => c.end().catch(() => undefined)));
  }
}
