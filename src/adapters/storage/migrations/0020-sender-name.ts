import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The name on the mail a person sends from an inbox (decision 0088): null until it is learned from their Sent mail
 * or set on the console, empty when there is none to use. Inboxes added before start unknown, so the next draft
 * learns it.
 */
export function senderName(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('inboxes').addColumn('sender_name', 'text').execute();
    },
  };
}
