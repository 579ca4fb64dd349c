import { copyFileSync, existsSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Migrator } from 'kysely/migration';
import { afterEach, describe, expect, it } from 'vitest';
import { seedAccount } from '../../../core/inboxes/inbox-store.contract.ts';
import { tempDir } from '../../../../test/support/temp-dir.ts';
import { createStores, migrateToLatest, openSqlite, type SqliteDb } from '../index.ts';
import { attachLegacyAudit, auditHome, legacyAuditFile } from './0009-audit-home.ts';
import { migrationsFor } from './index.ts';

// Decision 0013: rows a 0012 version kept in its audit file come home to the main database, once.
describe('migration 0009: the audit log home again', () => {
  let db: SqliteDb | undefined;
  afterEach(async () => {
    await db?.close();
  });

  /** A database as a 0012 version left it: migrated to 0008, its audit rows in the file beside it. */
  async function oldInstall() {
    const path = `${tempDir('audit-home-')}/inbox-triage.db`;
    db = openSqlite(path);
    const migrations = migrationsFor('sqlite');
    const migrator = new Migrator({
      db: db.kysely,
      provider: { getMigrations: () => Promise.resolve(migrations) },
      migrationTableName: 'schema_migrations',
      migrationLockTableName: 'schema_migrations_lock',
    });
    expect((await migrator.migrateTo('0008-code-replay')).error).toBeUndefined();
    const stores = createStores(db);
    const kept = await seedAccount(stores.accounts);
    const gone = await seedAccount(stores.accounts);
    await stores.accounts.delete(gone);
    const file = new BetterSqlite3(legacyAuditFile(path));
    file.exec(`create table audit_log (id integer primary key not null, at integer not null, account_id text not null,
      credential_kind text not null, credential_id text not null, client_id text, tool text not null, inbox_id text,
      outcome text not null, undo_id text, duration_ms integer not null)`);
    const insert = file.prepare(
      'insert into audit_log (at, account_id, credential_kind, credential_id, client_id, tool, inbox_id, outcome, undo_id, duration_ms) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    insert.run(1000, kept, 'api_key', 'key_1', null, 'list_inboxes', null, 'ok', null, 3);
    insert.run(1000, kept, 'api_key', 'key_1', null, 'list_inboxes', null, 'ok', null, 3); // a twin in the same ms
    insert.run(
      2000,
      kept,
      'access_token',
      'tok_1',
      'client_1',
      'trash_message',
      'inbox_x',
      'ok',
      'undo_1',
      9,
    );
    insert.run(3000, gone, 'api_key', 'key_2', null, 'list_inboxes', null, 'ok', null, 1);
    file.close();
    return { path, kept, stores, db };
  }

  it('copies the rows of existing accounts, drops the rest, removes the file', async () => {
    const { path, kept, stores, db: d } = await oldInstall();
    expect(await migrateToLatest(d)).toContain('0009-audit-home');
    expect(existsSync(legacyAuditFile(path))).toBe(false);
    const rows = await stores.audit.recent(kept, 10);
    expect(rows.map((r) => [r.tool, r.at.getTime(), r.undoId])).toEqual([
      ['trash_message', 2000, 'undo_1'],
      ['list_inboxes', 1000, null],
      ['list_inboxes', 1000, null],
    ]);
    const n = await d.kysely
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(n.n).toBe(3);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a crash between the copy and the removal repeats nothing', async () => {
    const { path, db: d } = await oldInstall();
    const saved = `${path}.saved`;
    copyFileSync(legacyAuditFile(path), saved);
    await migrateToLatest(d);
    copyFileSync(saved, legacyAuditFile(path)); // the file is back, as if the removal never happened
    const count = async () =>
      (
        await d.kysely
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    // Copying again (were the migration ever run twice) adds nothing.
    const attached = attachLegacyAudit(d.sqlite, path);
    await auditHome('sqlite').up(d.kysely);
    attached?.done(false);
    expect(await count()).toBe(3);
    // The next start finds nothing pending and removes the leftover file.
    expect(await migrateToLatest(d)).toEqual([]);
    expect(await count()).toBe(3);
    expect(existsSync(legacyAuditFile(path))).toBe(false);
  });

  it('does nothing on a database that never had an audit file', async () => {
    db = openSqlite(`${tempDir('audit-home-')}/fresh.db`);
    expect(await migrateToLatest(db)).toContain('0009-audit-home');
  });
});
