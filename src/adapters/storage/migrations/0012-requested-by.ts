import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/** Who asked for a pending send (the credential of the agent's call), for the person's Waiting-for-you page. */
export function requestedBy(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('pending_sends').addColumn('requested_by', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('pending_sends').dropColumn('requested_by').execute();
    },
  };
}
