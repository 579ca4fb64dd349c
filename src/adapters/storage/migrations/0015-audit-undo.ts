import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Settings → Activity lists the changes whose call never reported back (a handle no audit entry names, decision
 * 0028): looking a handle up in the audit log by `undo_id` is an index probe, not a scan of the account's log.
 */
export function auditUndo(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('audit_undo_idx').on('audit_log').column('undo_id').execute();
    },
  };
}
