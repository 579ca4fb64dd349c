import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';

/**
 * SQLite keeps its rate windows in the database too (decision 0147), in the layout PostgreSQL has had since 0002: a
 * day's budget — new drafts, new labels, sign-in lock-outs — no longer starts again when the service restarts.
 */
export function rateLimitsOnSqlite(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('expire', 'integer')
        .execute();
    },
    async down(db: Kysely<unknown>) {
      if (dialect === 'sqlite') await db.schema.dropTable('rate_limits').execute();
    },
  };
}
