import type { Transaction } from 'kysely';
import type { Dialect } from './database.ts';
import type { Database } from './schema.ts';

/**
 * Makes transactions that count an account's rows before adding one (API keys, inboxes within their limits) run one
 * after another for that account. PostgreSQL: the account's row locked until the transaction ends. SQLite: nothing to
 * do, its one connection runs transactions one at a time already.
 */
export async function lockAccount(
  tx: Transaction<Database>,
  dialect: Dialect,
  accountId: string,
): Promise<void> {
  if (dialect === 'postgres')
    await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}
