import type { AccountId } from '../../core/accounts/account.ts';
import type { AuditEntry, AuditLog } from '../../core/audit/audit-log.ts';
import type { Db } from './database.ts';
import { hotBatch } from './hot-query.ts';
import { fromAuditRow, toAuditRow } from './audit-rows.ts';

type AuditRow = ReturnType<typeof toAuditRow>;

// Every tool call writes a row; the batched decorator groups them, so the statement is compiled once per group
// size rather than for every group (hot-query.ts).
const insertStatement = (db: Db) =>
  hotBatch<AuditRow>(db, (rows) => db.kysely.insertInto('audit_log').values([...rows]));

export class KyselyAuditLog implements AuditLog {
  private readonly db: Db['kysely'];
  private readonly insert: ReturnType<typeof insertStatement>;
  constructor(db: Db) {
    this.db = db.kysely;
    this.insert = insertStatement(db);
  }

  record(e: AuditEntry): Promise<void> {
    return this.recordMany([e]);
  }

  /** One statement for many rows (the batched decorator's group commit); chunked under parameter limits. */
  async recordMany(entries: readonly AuditEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += 500) {
      await this.insert(entries.slice(i, i + 500).map(toAuditRow));
    }
  }

  async recent(accountId: AccountId, limit: number): Promise<AuditEntry[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(fromAuditRow);
  }
}
