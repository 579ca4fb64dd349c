import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { openPostgres } from './database.ts';

describe('the peer check on PostgreSQL sessions (decision 0058)', () => {
  it('is in force on every connection of the pool before its first query', async () => {
    const db = openPostgres(await freshPgDatabase(), { poolSize: 3 });
    try {
      // Three at once: three connections, each one's first query already after the check.
      const seen = await Promise.all(
        [0, 1, 2].map(() =>
          sql<{ idle: string; interval: string; count: string; user: string }>`
            select current_setting('tcp_keepalives_idle') as idle,
                   current_setting('tcp_keepalives_interval') as interval,
                   current_setting('tcp_keepalives_count') as count,
                   current_setting('tcp_user_timeout') as user,
                   pg_sleep(0.05)`.execute(db.kysely),
        ),
      );
      for (const r of seen)
        expect(r.rows[0]).toMatchObject({ idle: '10', interval: '5', count: '3', user: '25000' });
    } finally {
      await db.close();
    }
  });

  it("sets each session's statement deadline, none where there is none, whatever the database's default", async () => {
    const url = await freshPgDatabase();
    // An operator's (or a host's) default for every session of this database.
    const admin = openPostgres(url, { poolSize: 1, deadlineMs: 0 });
    await sql`alter database ${sql.id(new URL(url).pathname.slice(1))} set statement_timeout = '50ms'`.execute(
      admin.kysely,
    );
    await admin.close();
    for (const deadlineMs of [0, 30_000]) {
      const db = openPostgres(url, { poolSize: 1, deadlineMs });
      try {
        const r = await sql<{ timeout: string }>`
          select current_setting('statement_timeout') as timeout, pg_sleep(0.2)`.execute(db.kysely);
        expect(r.rows[0]?.timeout).toBe(deadlineMs === 0 ? '0' : '30s');
      } finally {
        await db.close();
      }
    }
  });

  it("keeps a session left idle however short the database's idle_session_timeout", async () => {
    const url = await freshPgDatabase();
    const admin = openPostgres(url, { poolSize: 1, deadlineMs: 0 });
    await sql`alter database ${sql.id(new URL(url).pathname.slice(1))} set idle_session_timeout = '300ms'`.execute(
      admin.kysely,
    );
    await admin.close();
    const db = openPostgres(url, { poolSize: 1 });
    try {
      const pid = async () =>
        (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely)).rows[0]?.pid;
      const first = await pid();
      await new Promise((r) => setTimeout(r, 1000));
      // The same session: the server did not end it under the pool (which closes its own idle ones after 10 s).
      expect(await pid()).toBe(first);
    } finally {
      await db.close();
    }
  });
});
