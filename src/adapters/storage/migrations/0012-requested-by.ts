import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** Who asked for a pending send or unsubscribe (the agent's credential), for the person's Waiting-for-you page. */
export function requestedBy(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('pending_sends').addColumn('requested_by', 'text').execute();
      await db.schema.alterTable('pending_unsubscribes').addColumn('requested_by', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('pending_sends').dropColumn('requested_by').execute();
      await db.schema.alterTable('pending_unsubscribes').dropColumn('requested_by').execute();
    },
  };
}
