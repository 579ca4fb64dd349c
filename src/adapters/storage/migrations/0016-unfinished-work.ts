import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * What the sweep for work a killed process left unfinished reads (decision 0031):
 * - A draft's mailbox copy is written between two statements: `copy_pending_at` is set before the APPEND — by the
 *   insert of a new draft, or before an edit writes its new copy — and cleared once the copy is recorded. A draft
 *   still marked some minutes on is one whose copy a process did not finish writing; only marked rows are indexed.
 * - An unsubscribe request claimed (`posting`) and never finished, found as stranded sends are.
 */
export function unfinishedWork(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('drafts').addColumn('copy_pending_at', bigint).execute();
      await sql`create index drafts_copy_pending_idx on drafts (copy_pending_at) where copy_pending_at is not null`.execute(
        db,
      );
      await db.schema
        .createIndex('pending_unsubscribes_stranded_idx')
        .on('pending_unsubscribes')
        .columns(['status', 'claimed_at'])
        .execute();
    },
  };
}
