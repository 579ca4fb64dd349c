import { existsSync, rmSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';

/** Where versions with decision 0012 kept the audit log of a file-backed SQLite database. */
export const legacyAuditFile = (databasePath: string): string =>
  `${databasePath.replace(/\.(db|sqlite3?)$/, '')}-audit.db`;

const COLUMNS =
  'at, account_id, credential_kind, credential_id, client_id, tool, inbox_id, outcome, undo_id, duration_ms';

/**
 * The audit log is home again in the main database (decision 0013). On SQLite, rows a 0012 version wrote to its
 * audit file are copied back — only those of accounts that still exist, and only those not copied already, so a
 * crash between the copy and the file's removal repeats nothing — and the file is removed. PostgreSQL never had one.
 */
export function auditHome(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      const main = await sql<{
        file: string;
      }>`select file from pragma_database_list where name = 'main'`.execute(db);
      const path = main.rows[0]?.file ?? '';
      if (path === '') return; // :memory:
      const legacy = legacyAuditFile(path);
      if (!existsSync(legacy)) return;
      // SQLite migrations run outside a transaction (Kysely: no transactional DDL), so ATTACH is allowed.
      await sql`attach database ${legacy} as legacy_audit`.execute(db);
      try {
        const found = await sql<{ n: number }>`
          select count(*) as n from legacy_audit.sqlite_master where type = 'table' and name = 'audit_log'`.execute(
          db,
        );
        if ((found.rows[0]?.n ?? 0) > 0) {
          await sql`
            insert into audit_log (${sql.raw(COLUMNS)})
            select ${sql.raw(
              COLUMNS.split(', ')
                .map((c) => `l.${c}`)
                .join(', '),
            )}
            from legacy_audit.audit_log l
            where l.account_id in (select id from accounts)
              and not exists (
                select 1 from audit_log m
                where m.at = l.at and m.account_id = l.account_id and m.credential_id = l.credential_id
                  and m.tool = l.tool and m.outcome = l.outcome and m.duration_ms = l.duration_ms
                  and m.inbox_id is l.inbox_id and m.undo_id is l.undo_id
              )
            order by l.id`.execute(db);
        }
      } finally {
        await sql`detach database legacy_audit`.execute(db);
      }
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${legacy}${suffix}`, { force: true });
    },
    async down() {
      // Nothing to undo: the rows stay in the main database.
    },
  };
}
