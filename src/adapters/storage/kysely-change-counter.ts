import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { ChangeCounter } from '../../core/sync/change-counter.ts';
import type { Db } from './database.ts';
import { inboxRowWrite } from './sql-errors.ts';

/** One row per inbox that has been changed; a bump is one statement, so concurrent bumps on any node all count. */
export class KyselyChangeCounter implements ChangeCounter {
  private readonly db: Db['kysely'];
  constructor(db: Db) {
    this.db = db.kysely;
  }

  async read(inboxId: InboxId): Promise<number> {
    const r = await this.db
      .selectFrom('inbox_change_counts')
      .select('count')
      .where('inbox_id', '=', inboxId)
      .executeTakeFirst();
    return r?.count ?? 0;
  }

  async bump(inboxIds: readonly InboxId[]): Promise<void> {
    const ids = [...new Set(inboxIds)].sort();
    if (ids.length === 0) return;
    await inboxRowWrite(
      this.db
        .insertInto('inbox_change_counts')
        .values(ids.map((id) => ({ inbox_id: id, count: 1 })))
        .onConflict((oc) =>
          oc.column('inbox_id').doUpdateSet((eb) => ({ count: eb('inbox_change_counts.count', '+', 1) })),
        )
        .execute(),
    );
  }
}
