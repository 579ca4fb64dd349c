import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/** Sign-in (password hashes, sessions), invitations, API keys, and shared rate-limit counters. */
export function people(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('accounts').addColumn('password_hash', 'text').execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('last_seen_at', bigint, (c) => c.notNull())
        .addColumn('user_agent', 'text')
        .execute();
      await db.schema.createIndex('sessions_account_idx').on('sessions').column('account_id').execute();

      await db.schema
        .createTable('invitations')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text')
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('used_at', bigint)
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('last4', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('last_used_at', bigint)
        .addColumn('revoked_at', bigint)
        .execute();
      await db.schema
        .createIndex('api_keys_account_idx')
        .on('api_keys')
        .columns(['account_id', 'created_at'])
        .execute();

      if (dialect === 'postgres') {
        // rate-limiter-flexible's own layout (RateLimiterPostgres), created here so it is versioned.
        await db.schema
          .createTable('rate_limits')
          .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
          .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('expire', 'bigint')
          .execute();
      }
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('rate_limits').ifExists().execute();
      for (const t of ['api_keys', 'invitations', 'sessions']) await db.schema.dropTable(t).execute();
      await db.schema.alterTable('accounts').dropColumn('password_hash').execute();
    },
  };
}
