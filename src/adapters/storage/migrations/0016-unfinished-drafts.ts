import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * A draft's row is written before its copy is appended to the mailbox, and its folder recorded after (decision
 * 0031): a row still without a folder some minutes on is a creation the process did not finish. The sweep that
 * finds them reads only those rows, never the whole table.
 */
export function unfinishedDrafts(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index drafts_unfinished_idx on drafts (created_at) where folder_path is null`.execute(
        db,
      );
    },
  };
}
