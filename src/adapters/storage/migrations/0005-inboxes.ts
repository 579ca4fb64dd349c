import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/** Sealed mailbox credentials, one-time links (secret capture, attachment downloads), and the demo mailbox. */
export function inboxes(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('inbox_credentials')
        .addColumn('inbox_id', 'text', (c) => c.primaryKey().references('inboxes.id').onDelete('cascade'))
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('secret_links')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('inbox_id', 'text', (c) => c.references('inboxes.id').onDelete('cascade'))
        .addColumn('payload_json', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('used_at', bigint)
        .execute();
      await db.schema
        .createTable('demo_messages')
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('folder_path', 'text', (c) => c.notNull())
        .addColumn('uid', 'integer', (c) => c.notNull())
        .addColumn('flags_json', 'text', (c) => c.notNull())
        .addColumn('internal_date', bigint, (c) => c.notNull())
        .addColumn('doc_json', 'text', (c) => c.notNull())
        .addColumn('modseq', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('demo_messages_pk', ['inbox_id', 'folder_path', 'uid'])
        .execute();
      await db.schema
        .createTable('demo_folders')
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('canonical', 'text')
        .addColumn('uid_validity', 'text', (c) => c.notNull())
        .addColumn('uid_next', 'integer', (c) => c.notNull())
        .addColumn('modseq', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('demo_folders_pk', ['inbox_id', 'path'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['demo_folders', 'demo_messages', 'secret_links', 'inbox_credentials'])
        await db.schema.dropTable(t).execute();
    },
  };
}
