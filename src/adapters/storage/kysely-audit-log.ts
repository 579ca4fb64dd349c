import type { Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { AuditEntry, AuditLog, AuditQuery } from '../../core/audit/audit-log.ts';
import type { Db } from './database.ts';
import type { AuditLogTable } from './schema.ts';
import { hotBatch } from './hot-query.ts';
import { toDate } from './sql-errors.ts';

const toAuditRow = (e: AuditEntry) => ({
  at: e.at.getTime(),
  account_id: e.accountId,
  credential_kind: e.credentialKind,
  credential_id: e.credentialId,
  client_id: e.clientId,
  tool: e.tool,
  inbox_id: e.inboxId,
  outcome: e.outcome,
  undo_id: e.undoId,
  duration_ms: e.durationMs,
});

const fromAuditRow = (r: Selectable<AuditLogTable>): AuditEntry => ({
  at: toDate(r.at),
  accountId: r.account_id as AccountId,
  credentialKind: r.credential_kind as AuditEntry['credentialKind'],
  credentialId: r.credential_id,
  clientId: r.client_id,
  tool: r.tool,
  inboxId: r.inbox_id,
  outcome: r.outcome,
  undoId: r.undo_id,
  durationMs: r.duration_ms,
});

type AuditRow = ReturnType<typeof toAuditRow>;

// Every tool call writes a row; the batched decorator groups them, so the statement is compiled once per group
// size rather than for every group (hot-query.ts).
const insertStatement = (db: Db) =>
  hotBatch<AuditRow>(db, (rows) => db.kysely.insertInto('audit_log').values([...rows]));

/** Rows one statement of the retention sweep removes at most. */
const DELETE_BATCH = 5_000;

/** The audit log in the main database (decision 0013); deleting an account deletes its rows (foreign key). */
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

  async page(accountId: AccountId, q: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }> {
    let base = this.db.selectFrom('audit_log').where('account_id', '=', accountId);
    if (q.inboxId !== undefined) base = base.where('inbox_id', '=', q.inboxId);
    if (q.credentialId !== undefined) base = base.where('credential_id', '=', q.credentialId);
    if (q.tool !== undefined) base = base.where('tool', '=', q.tool);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { entries: rows.map(fromAuditRow), total: count.n };
  }

  /**
   * Account by account, through the (account, time) index, a few thousand rows a statement: a first sweep over a
   * year of a busy account's rows never holds one statement open for long (decision 0063's deadline).
   */
  async deleteBefore(before: Date): Promise<number> {
    const accounts = await this.db.selectFrom('accounts').select('id').execute();
    let removed = 0;
    for (const { id } of accounts) {
      for (;;) {
        const r = await this.db
          .deleteFrom('audit_log')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('audit_log')
              .select('id')
              .where('account_id', '=', id)
              .where('at', '<', before.getTime())
              .limit(DELETE_BATCH),
          )
          .executeTakeFirst();
        const deleted = Number(r.numDeletedRows);
        removed += deleted;
        if (deleted < DELETE_BATCH) break;
      }
    }
    return removed;
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
