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
});
