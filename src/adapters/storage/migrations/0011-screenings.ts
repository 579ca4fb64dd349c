import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * Junk screening: one row per message handed out or screened (contract §4.9). Message ids stay the same across
 * our moves, so the row follows its message into Screened and back; "still in Screened" is read from the message.
 */
export function screenings(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('screenings')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('sender_address', 'text', (c) => c.notNull())
        .addColumn('offered_at', bigint)
        .addColumn('offer_expires_at', bigint)
        .addColumn('verdict', 'text')
        .addColumn('reason', 'text')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('decided_at', bigint)
        .addColumn('resolution', 'text')
        .addColumn('resolved_at', bigint)
        .addColumn('undo_id', 'text')
        .addUniqueConstraint('screenings_message_uq', ['inbox_id', 'message_id'])
        .execute();
      await db.schema
        .createIndex('screenings_decided_idx')
        .on('screenings')
        .columns(['inbox_id', 'decided_at'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('screenings').execute();
    },
  };
}
