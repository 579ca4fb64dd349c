import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * Passkeys for the console (decision 0092): each credential's public key (COSE, base64url) and counter, by its id; and
 * the challenges
 * spent, by their hash, until they end, so an answer is taken once on every node.
 */
export function passkeys(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('passkeys')
        .addColumn('credential_id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('counter', bigint, (c) => c.notNull())
        .addColumn('transports', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('last_used_at', bigint)
        .execute();
      await db.schema.createIndex('passkeys_account_idx').on('passkeys').column('account_id').execute();
      await db.schema
        .createTable('passkey_challenges_spent')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .execute();
    },
  };
}
