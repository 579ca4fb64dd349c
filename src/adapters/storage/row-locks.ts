import type { Transaction } from 'kysely';
import type { Dialect } from './database.ts';
import type { Database } from './schema.ts';

/*
 * Row locks that make transactions on PostgreSQL run one after another where their statements alone would not.
 * SQLite needs none: its one connection runs transactions one at a time already.
 */

/**
 * Transactions that count an account's rows before adding one (API keys, inboxes within their limits): the account's
 * row locked until the transaction ends.
 */
export async function lockAccount(
  tx: Transaction<Database>,
  dialect: Dialect,
  accountId: string,
): Promise<void> {
  if (dialect === 'postgres')
    await tx.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
}

/**
 * Transactions that write several of an inbox's folder rows (the folder list, the selection): the inbox's row
 * locked until the transaction ends. Each statement locks the folder rows it changes in its own order (an upsert in
 * the listing's, an update in its scan's), so two such transactions at once could each hold a row the other waits
 * for. `FOR NO KEY UPDATE`: rows that only reference the inbox (a message or folder added meanwhile) do not wait.
 */
export async function lockInbox(tx: Transaction<Database>, dialect: Dialect, inboxId: string): Promise<void> {
  if (dialect === 'postgres')
    await tx.selectFrom('inboxes').select('id').where('id', '=', inboxId).forNoKeyUpdate().execute();
}
