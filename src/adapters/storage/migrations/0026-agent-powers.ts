import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * What the person lets each agent do beyond reading (decision 0141): on an API key, on an OAuth sign-in, and on the
 * authorization code between the consent and the sign-in. Null is every power — what every credential made before
 * holds — else the powers' names separated by spaces ('' for reading alone).
 */
export function agentPowers(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['api_keys', 'oauth_codes', 'oauth_grants'])
        await db.schema.alterTable(table).addColumn('powers', 'text').execute();
    },
  };
}
