import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/** How many changes our actions and undos made to each inbox's mailbox, read by syncs (decision 0034). */
export function changeCounts(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('inbox_change_counts')
        .addColumn('inbox_id', 'text', (c) => c.primaryKey().references('inboxes.id').onDelete('cascade'))
        .addColumn('count', bigint, (c) => c.notNull())
        .execute();
    },
  };
}
