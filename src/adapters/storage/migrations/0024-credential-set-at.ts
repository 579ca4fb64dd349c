import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * When the person last gave an inbox its credential — a password typed, a sign-in with Google or Microsoft — or
 * changed where it is reached (decision 0095). A watcher started before it holds another login and starts again on
 * the node that holds it. Null for inboxes connected before: their watchers run on as they are.
 */
export function credentialSetAt(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('inboxes').addColumn('credential_set_at', bigint).execute();
    },
  };
}
