import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * `list_messages` pages a folder newest first by (date, position, id). The old index stopped at position, so every
 * page sorted the whole folder's rows in a temporary B-tree to break ties by id — all columns of every row, to
 * return five (decision 0026). With `id` in the index the order comes from the index and a page reads its rows only.
 */
export function listingOrder(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('messages_listing_order_idx')
        .on('messages')
        .columns(['inbox_id', 'folder_id', 'date', 'position', 'id'])
        .execute();
      await db.schema.dropIndex('messages_listing_idx').execute();
    },
  };
}
