import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * Approvals to unsubscribe (RFC 8058 one-click). The sender list reads the messages table through its inbox index;
 * an index of its own would cost every synced message a fourth listing index for a query run on request.
 */
export function unsubscribes(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('pending_unsubscribes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('sender_key', 'text', (c) => c.notNull())
        .addColumn('sender_address', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('claimed_at', bigint)
        .addColumn('finished_at', bigint)
        .addColumn('http_status', 'integer')
        .addColumn('error', 'text')
        .execute();
      await db.schema
        .createIndex('pending_unsubscribes_sender_idx')
        .on('pending_unsubscribes')
        .columns(['inbox_id', 'sender_key', 'finished_at'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('pending_unsubscribes').execute();
    },
  };
}
