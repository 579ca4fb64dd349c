import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * What recovering from a killed process needs (decision 0028):
 * - Settings → Activity lists the changes whose call never reported back (a handle no audit entry names): looking a
 *   handle up in the audit log by `undo_id` is an index probe, not a scan of the account's log.
 * - A refresh token presented again after its rotation's answer was lost is rotated again only if the pair that
 *   answer carried was never used: `used_at` records an access token's first use.
 */
export function crashRecovery(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('audit_undo_idx').on('audit_log').column('undo_id').execute();
      await db.schema.alterTable('oauth_tokens').addColumn('used_at', bigint).execute();
    },
  };
}
