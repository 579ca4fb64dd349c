import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountId } from '../../core/accounts/account.ts';
import type { AuditEntry } from '../../core/audit/audit-log.ts';
import { seedAccount } from '../../core/inboxes/inbox-store.contract.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { auditFilePath } from './audit-file.ts';
import { createStores, migrateToLatest, openDatabase, type Db, type Stores } from './index.ts';

// On a SQLite file the audit log lives in a file of its own, written by a worker thread (decision 0012). The
// store contract runs against it in stores.test.ts; these pin what the move adds: where rows land and when,
// account deletion, rows an older version left in the main database, and shutdown.
describe('the SQLite audit file', () => {
  let path: string;
  let db: Db;
  let stores: Stores;
  beforeEach(async () => {
    path = `${tempDir('audit-')}/inbox-triage.db`;
    db = openDatabase({ kind: 'sqlite', path });
    await migrateToLatest(db);
    stores = createStores(db);
  });
  afterEach(async () => {
    await db.close();
  });

  const entry = (accountId: AccountId, n: number): AuditEntry => ({
    at: new Date(Date.UTC(2030, 0, 1, 0, n)),
    accountId,
    credentialKind: 'api_key',
    credentialId: 'key_x',
    clientId: null,
    tool: 'list_inboxes',
    inboxId: null,
    outcome: 'ok',
    undoId: null,
    durationMs: n,
  });
  /** What another process reading the file sees: the rows are committed, not just handed over. */
  const committed = (accountId: string) => {
    const other = new BetterSqlite3(auditFilePath(path), { readonly: true });
    try {
      return (
        other
          .prepare('select duration_ms from audit_log where account_id = ? order by at')
          .all(accountId) as {
          duration_ms: number;
        }[]
      ).map((r) => r.duration_ms);
    } finally {
      other.close();
    }
  };

  it('commits a row before record() resolves, in its own owner-only file, not in the main database', async () => {
    const a = await seedAccount(stores.accounts);
    await Promise.all([1, 2, 3].map((n) => stores.audit.record(entry(a, n))));
    expect(committed(a)).toEqual([1, 2, 3]);
    expect(statSync(auditFilePath(path)).mode & 0o777).toBe(0o600);
    const inMain = await db.kysely.selectFrom('audit_log').select('id').execute();
    expect(inMain).toEqual([]);
  });

  it("deletes an account's activity with the account", async () => {
    const a = await seedAccount(stores.accounts);
    const b = await seedAccount(stores.accounts);
    await stores.audit.record(entry(a, 1));
    await stores.audit.record(entry(b, 2));
    expect(await stores.accounts.delete(a)).toBe(true);
    expect(committed(a)).toEqual([]);
    expect(await stores.audit.recent(a, 10)).toEqual([]);
    expect(committed(b)).toEqual([2]);
  });

  it('moves rows an older version kept in the main database, and drops those of deleted accounts', async () => {
    const a = await seedAccount(stores.accounts);
    const legacy = (accountId: string, n: number) => ({
      at: Date.UTC(2029, 0, 1, 0, n),
      account_id: accountId,
      credential_kind: 'api_key',
      credential_id: 'key_old',
      client_id: null,
      tool: 'list_inboxes',
      inbox_id: null,
      outcome: 'ok',
      undo_id: null,
      duration_ms: n,
    });
    await db.kysely
      .insertInto('audit_log')
      .values([legacy(a, 7), legacy(a, 8)])
      .execute();
    await db.close();
    // A crash between deleting an account and its audit rows, as it would look on the next start.
    const raw = new BetterSqlite3(auditFilePath(path));
    raw
      .prepare(
        "insert into audit_log (at, account_id, credential_kind, credential_id, tool, outcome, duration_ms) values (1, 'acct_gone', 'api_key', 'k', 't', 'ok', 9)",
      )
      .run();
    raw.close();

    db = openDatabase({ kind: 'sqlite', path });
    stores = createStores(db);
    await stores.audit.record(entry(a, 9)); // the writer starts, and adopts first
    expect(committed(a)).toEqual([7, 8, 9]);
    expect(committed('acct_gone')).toEqual([]);
    expect(await db.kysely.selectFrom('audit_log').select('id').execute()).toEqual([]);
    expect((await stores.audit.recent(a, 2)).map((e) => e.durationMs)).toEqual([9, 8]);

    // A crash after the copy and before the delete: the rows are in both files on the next start.
    await db.kysely
      .insertInto('audit_log')
      .values([legacy(a, 7), legacy(a, 8)])
      .execute();
    await db.close();
    db = openDatabase({ kind: 'sqlite', path });
    stores = createStores(db);
    await stores.audit.record(entry(a, 10));
    expect(committed(a)).toEqual([7, 8, 9, 10]);
  });

  it('starts a new writer when one dies, and says so', async () => {
    const a = await seedAccount(stores.accounts);
    const problems: string[] = [];
    db.auditFile?.reportProblemsTo((e) => problems.push(e.message));
    await stores.audit.record(entry(a, 1));
    const writer = (db.auditFile as unknown as { writer: { terminate(): Promise<number> } }).writer;
    await writer.terminate();
    await stores.audit.record(entry(a, 2));
    expect(committed(a)).toEqual([1, 2]);
    expect(problems).toEqual([expect.stringMatching(/audit writer stopped/)]);
  });

  it('finishes what was handed over when closed, and refuses rows after', async () => {
    const a = await seedAccount(stores.accounts);
    const pending = [1, 2, 3, 4].map((n) => stores.audit.record(entry(a, n)));
    await db.close();
    await Promise.all(pending);
    expect(committed(a)).toEqual([1, 2, 3, 4]);
    await expect(stores.audit.record(entry(a, 5))).rejects.toThrow(/closed/);
    db = openDatabase({ kind: 'sqlite', path }); // for afterEach
  });
});
