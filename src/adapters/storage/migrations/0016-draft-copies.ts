import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * A draft's mailbox copy is written between two statements (decision 0031): `copy_pending_at` is set before the
 * APPEND — by the insert of a new draft, or before an edit writes its new copy — and cleared once the copy is
 * recorded. A draft still marked some minutes on is one whose copy a process did not finish writing; the sweep that
 * finds them reads only marked rows.
 */
export function draftCopies(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('drafts').addColumn('copy_pending_at', bigint).execute();
      await sql`create index drafts_copy_pending_idx on drafts (copy_pending_at) where copy_pending_at is not null`.execute(
        db,
      );
    },
  };
}
