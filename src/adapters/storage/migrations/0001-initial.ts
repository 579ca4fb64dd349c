import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/** Accounts, inboxes, folders, the message index and settings. */
export function initial(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('trial_ends_at', bigint)
        .addColumn('payment_state', 'text', (c) => c.notNull().defaultTo('ok'))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('inboxes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('imap_host', 'text')
        .addColumn('imap_port', 'integer')
        .addColumn('imap_user', 'text')
        .addColumn('is_demo', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('connection_status', 'text', (c) => c.notNull())
        .addColumn('last_error', 'text')
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('inboxes_account_idx')
        .on('inboxes')
        .columns(['account_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('folders')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('canonical', 'text')
        .addColumn('selected', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('uid_validity', 'text')
        .addColumn('uid_next', bigint)
        .addColumn('highest_modseq', 'text')
        .addColumn('cursor', 'text')
        .addColumn('window_low', bigint)
        .addColumn('synced_at', bigint)
        .addColumn('sync_version', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('folders_inbox_path_uq', ['inbox_id', 'path'])
        .execute();

      await db.schema
        .createTable('messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('folder_id', 'text', (c) => c.notNull().references('folders.id').onDelete('cascade'))
        .addColumn('provider_ref', 'text', (c) => c.notNull())
        .addColumn('position', bigint, (c) => c.notNull())
        .addColumn('thread_id', 'text')
        .addColumn('internet_message_id', 'text')
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('from_address', 'text', (c) => c.notNull())
        .addColumn('from_name', 'text', (c) => c.notNull())
        .addColumn('to_json', 'text', (c) => c.notNull())
        .addColumn('snippet', 'text', (c) => c.notNull())
        .addColumn('search_text', 'text', (c) => c.notNull())
        .addColumn('date', bigint, (c) => c.notNull())
        .addColumn('unread', 'integer', (c) => c.notNull())
        .addColumn('starred', 'integer', (c) => c.notNull())
        .addColumn('labels_json', 'text', (c) => c.notNull())
        .addColumn('has_attachments', 'integer', (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .addColumn('list_id', 'text')
        .addColumn('list_unsubscribe', 'text')
        .addColumn('list_unsubscribe_post', 'integer', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('messages_folder_ref_uq', ['folder_id', 'provider_ref'])
        .execute();
      await db.schema
        .createIndex('messages_listing_idx')
        .on('messages')
        .columns(['inbox_id', 'folder_id', 'date', 'position'])
        .execute();
      await db.schema
        .createIndex('messages_sender_idx')
        .on('messages')
        .columns(['inbox_id', 'from_address'])
        .execute();

      await db.schema
        .createTable('settings')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('value_json', 'text', (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('settings_pk', ['scope', 'key'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['settings', 'messages', 'folders', 'inboxes', 'accounts'])
        await db.schema.dropTable(t).execute();
    },
  };
}
