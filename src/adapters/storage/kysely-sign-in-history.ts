import type { AccountId } from '../../core/accounts/account.ts';
import type { SignInEvent, SignInEventKind, SignInHistory } from '../../core/sessions/sign-in-history.ts';
import type { Db } from './database.ts';
import { toDate } from './sql-errors.ts';

/** Rows one statement of the sweep removes at most. */
const DELETE_BATCH = 5_000;

/** Sign-in history in the main database; deleting an account deletes its rows (foreign key). */
export class KyselySignInHistory implements SignInHistory {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async record(e: SignInEvent): Promise<void> {
    await this.db
      .insertInto('sign_in_events')
      .values({
        account_id: e.accountId,
        at: e.at.getTime(),
        kind: e.kind,
        ip: e.ip?.slice(0, 64) ?? null,
        user_agent: e.userAgent?.slice(0, 200) ?? null,
      })
      .execute();
  }

  async recent(accountId: AccountId, limit: number): Promise<SignInEvent[]> {
    const rows = await this.db
      .selectFrom('sign_in_events')
      .select(['at', 'kind', 'ip', 'user_agent'])
      .where('account_id', '=', accountId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      at: toDate(r.at),
      accountId,
      kind: r.kind as SignInEventKind,
      ip: r.ip,
      userAgent: r.user_agent,
    }));
  }

  /** A few thousand rows a statement, so a first sweep never holds one statement open for long. */
  async deleteBefore(before: Date): Promise<number> {
    let removed = 0;
    for (;;) {
      const r = await this.db
        .deleteFrom('sign_in_events')
        .where('id', 'in', (eb) =>
          eb.selectFrom('sign_in_events').select('id').where('at', '<', before.getTime()).limit(DELETE_BATCH),
        )
        .executeTakeFirst();
      const deleted = Number(r.numDeletedRows);
      removed += deleted;
      if (deleted < DELETE_BATCH) return removed;
    }
  }
}
