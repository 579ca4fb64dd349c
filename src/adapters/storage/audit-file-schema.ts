import type BetterSqlite3 from 'better-sqlite3';

/** The audit table of the SQLite audit file: the same columns as `audit_log` in the main database (0003). */
export const AUDIT_COLUMNS = [
  'at',
  'account_id',
  'credential_kind',
  'credential_id',
  'client_id',
  'tool',
  'inbox_id',
  'outcome',
  'undo_id',
  'duration_ms',
] as const;

/** Creates the audit file's table and index if they are missing; WAL, like the main database. */
export function prepareAuditFile(db: BetterSqlite3.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    create table if not exists audit_log (
      id integer primary key not null,
      at integer not null,
      account_id text not null,
      credential_kind text not null,
      credential_id text not null,
      client_id text,
      tool text not null,
      inbox_id text,
      outcome text not null,
      undo_id text,
      duration_ms integer not null
    );
    create index if not exists audit_account_at_idx on audit_log (account_id, at);
  `);
}
