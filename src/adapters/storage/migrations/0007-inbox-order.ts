import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Inboxes are listed by account in (created_at, id) order on every `list_inboxes`; an index on all three columns
 * serves that order directly (the old one left SQLite a temporary B-tree per call for the `id` tie-break).
 */
export function inboxOrder(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('inboxes_account_order_idx')
        .on('inboxes')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      await db.schema.dropIndex('inboxes_account_idx').execute();
    },
  };
}
