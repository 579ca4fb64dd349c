import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { columnTypes } from './column-types.ts';

/**
 * A second factor for the console's sign-in (decision 0089): an account's TOTP secret, sealed as mail credentials are,
 * the last step whose code was spent, and its recovery codes as hashes, one row each so a spend is one delete.
 */
export function secondFactors(dialect: Dialect): Migration {
  const { bigint } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('second_factors')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('last_step', bigint, (c) => c.notNull())
        .addColumn('created_at', bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('recovery_codes')
        .addColumn('account_id', 'text', (c) =>
          c.notNull().references('second_factors.account_id').onDelete('cascade'),
        )
        .addColumn('code_hash', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('recovery_codes_pk', ['account_id', 'code_hash'])
        .execute();
    },
  };
}
