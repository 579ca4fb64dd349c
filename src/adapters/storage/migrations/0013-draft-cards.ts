import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * The draft card's single-use codes (hash only), and a rule the store enforces for every way of sending: a draft
 * is claimed for sending at most once (chat approval, the console's Send, the card's Send — whichever is first).
 */
export function draftCards(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('card_codes')
        .addColumn('hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('draft_id', 'text', (c) => c.notNull().references('drafts.id').onDelete('cascade'))
        .addColumn('draft_version', 'integer', (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .addColumn('expires_at', bigint, (c) => c.notNull())
        .addColumn('used_at', bigint)
        .execute();
      await db.schema
        .createIndex('card_codes_account_expiry_idx')
        .on('card_codes')
        .columns(['account_id', 'expires_at'])
        .execute();
      await sql`CREATE UNIQUE INDEX pending_sends_once_per_draft ON pending_sends (draft_id) WHERE status IN ('sending', 'sent', 'unknown')`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('pending_sends_once_per_draft').execute();
      await db.schema.dropTable('card_codes').execute();
    },
  };
}
