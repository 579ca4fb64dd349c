import { existsSync, rmSync } from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';

/** Where versions with decision 0012 kept the audit log of a file-backed SQLite database. */
export const legacyAuditFile = (databasePath: string): string =>
  `${databasePath.replace(/\.(db|sqlite3?)$/, '')}-audit.db`;

const COLUMNS =
  'at, account_id, credential_kind, credential_id, client_id, tool, inbox_id, outcome, undo_id, duration_ms';

const LEGACY_SCHEMA = 'legacy_audit';

/**
 * Attaches the audit file a 0012 version left beside the database at `databasePath`, if there is one, for
 * migration 0009 to copy from; `done` detaches it and, once the migrations committed, removes it.
 */
export function attachLegacyAudit(
  sqlite: BetterSqlite3.Database,
  databasePath: string,
): { done: (committed: boolean) => void } | undefined {
  if (databasePath === '' || databasePath === ':memory:') return undefined;
  const legacy = legacyAuditFile(databasePath);
  if (!existsSync(legacy)) return undefined;
  sqlite.prepare(`attach database ? as ${LEGACY_SCHEMA}`).run(legacy);
  return {
    done(committed) {
      sqlite.exec(`detach database ${LEGACY_SCHEMA}`);
      if (committed) for (const suffix of ['', '-wal', '-shm']) rmSync(`${legacy}${suffix}`, { force: true });
    },
  };
}

/**
 * The audit log is home again in the main database (decision 0013). On SQLite, rows a 0012 version wrote to its
 * audit file are copied back — only those of accounts that still exist, and only those not copied already, so a
 * crash between the copy and the file's removal repeats nothing — and the file is removed. PostgreSQL never had one.
 */
export function auditHome(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      // migrateToLatest attaches the 0012 file as legacy_audit when there is one (ATTACH cannot run inside the
      // migrations' transaction) and removes it once they have committed.
      const attached = await sql<{
        n: number;
      }>`select count(*) as n from pragma_database_list where name = ${LEGACY_SCHEMA}`.execute(db);
      if ((attached.rows[0]?.n ?? 0) === 0) return;
      const found = await sql<{ n: number }>`
        select count(*) as n from legacy_audit.sqlite_master where type = 'table' and name = 'audit_log'`.execute(
        db,
      );
      if ((found.rows[0]?.n ?? 0) === 0) return;
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
    },
    async down() {
      // Nothing to undo: the rows stay in the main database.
    },
  };
}
