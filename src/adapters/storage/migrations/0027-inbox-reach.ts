import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * Which inboxes the person lets each agent reach (decision 0142): on an API key, on an OAuth sign-in, and on the
 * authorization code between the consent and the sign-in. Null is every inbox, those added later too — what every
 * credential made before holds — else the inboxes' ids separated by spaces ('' for none left).
 */
export function inboxReach(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['api_keys', 'oauth_codes', 'oauth_grants'])
        await db.schema.alterTable(table).addColumn('inboxes', 'text').execute();
    },
  };
}
