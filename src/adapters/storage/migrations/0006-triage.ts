import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/** Changing mail safely: undo records, leases and passes, VIPs, drafts and pending sends. */
export function triage(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('undo_records')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('entries_json', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('used_at', bigint)
        .execute();
      await db.schema
        .createTable('leases')
        .addColumn('inbox_id', 'text', (c) => c.primaryKey().references('inboxes.id').onDelete('cascade'))
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('agent_label', 'text', (c) => c.notNull())
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('triage_passes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('agent_label', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('started_at', bigint, (c) => c.notNull())
        .addColumn('ended_at', bigint, (c) => c.notNull())
        .addColumn('summary', 'text')
        .execute();
      await db.schema
        .createIndex('triage_passes_inbox_idx')
        .on('triage_passes')
        .columns(['inbox_id', 'ended_at'])
        .execute();
      await db.schema
        .createTable('vips')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addPrimaryKeyConstraint('vips_pk', ['account_id', 'kind', 'value'])
        .execute();
      await db.schema
        .createTable('drafts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
        .addColumn('to_text', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('thread_id', 'text')
        .addColumn('in_reply_to', 'text')
        .addColumn('references_json', 'text', (c) => c.notNull())
        .addColumn('internet_message_id', 'text', (c) => c.notNull())
        .addColumn('folder_path', 'text')
        .addColumn('provider_draft_id', 'text')
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('updated_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('pending_sends')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('draft_id', 'text', (c) => c.notNull().references('drafts.id').onDelete('cascade'))
        .addColumn('draft_version', 'integer', (c) => c.notNull())
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('claimed_at', bigint)
        .addColumn('finished_at', bigint)
        .addColumn('error', 'text')
        .execute();
      await db.schema
        .createIndex('pending_sends_stranded_idx')
        .on('pending_sends')
        .columns(['status', 'claimed_at'])
        .execute();
      // Where mail is submitted; null until known (demo inboxes, inboxes added before sending existed).
      // One column per statement: SQLite's ALTER TABLE takes a single action.
      await db.schema.alterTable('inboxes').addColumn('smtp_host', 'text').execute();
      await db.schema.alterTable('inboxes').addColumn('smtp_port', 'integer').execute();
      // Listing one conversation (list_messages with a thread).
      await db.schema
        .createIndex('messages_thread_idx')
        .on('messages')
        .columns(['inbox_id', 'thread_id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('messages_thread_idx').execute();
      await db.schema.alterTable('inboxes').dropColumn('smtp_port').execute();
      await db.schema.alterTable('inboxes').dropColumn('smtp_host').execute();
      for (const t of ['pending_sends', 'drafts', 'vips', 'triage_passes', 'leases', 'undo_records'])
        await db.schema.dropTable(t).execute();
    },
  };
}
