import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * When an authorization code comes back while its first redemption is still minting tokens, the replay marks the
 * code; the first redemption then creates no grant at all (OAuth 2.1 §4.1.3: a code seen twice has leaked).
 */
export function codeReplay(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('oauth_codes').addColumn('replayed_at', bigint).execute();
    },
  };
}
