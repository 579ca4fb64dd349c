// Runs in a worker thread (audit-file.ts): the only writer of the SQLite audit file, so that committing an
// audit row never takes the service's thread.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { AUDIT_COLUMNS, prepareAuditFile } from './audit-file-schema.ts';

const { path, mainPath } = workerData as { path: string; mainPath: string };
const db = new BetterSqlite3(path);
prepareAuditFile(db);

const insertOne = db.prepare(
  `insert into audit_log (${AUDIT_COLUMNS.join(', ')}) values (${AUDIT_COLUMNS.map(() => '?').join(', ')})`,
);
const insertAll = db.transaction((rows: readonly unknown[][]) => {
  for (const row of rows) insertOne.run(row);
});
const forget = db.prepare('delete from audit_log where account_id = ?');

/**
 * Brings in rows an older version wrote to the main database, then drops rows of accounts that no longer exist
 * there (an account deleted just before a crash, before its rows here were). Copy, then delete: a crash between
 * the two leaves the rows in both, and the next start copies only those not here yet (rows are told apart by all
 * their columns: ids differ between the two files), so nothing is lost and nothing doubled.
 */
function adopt(): void {
  db.prepare('attach database ? as main_db').run(mainPath);
  try {
    const has = (table: string) =>
      db.prepare("select 1 from main_db.sqlite_master where type = 'table' and name = ?").get(table) !==
      undefined;
    if (has('audit_log')) {
      const columns = AUDIT_COLUMNS.join(', ');
      const same = AUDIT_COLUMNS.map((c) => `a.${c} is m.${c}`).join(' and ');
      db.exec(
        `insert into audit_log (${columns}) select ${columns} from main_db.audit_log m
           where not exists (select 1 from audit_log a where ${same})
           order by m.id`,
      );
      db.exec('delete from main_db.audit_log');
    }
    // The distinct account ids come from the (account_id, at) index, not a scan of every row.
    if (has('accounts'))
      db.exec(
        `delete from audit_log where account_id in
           (select distinct account_id from audit_log except select id from main_db.accounts)`,
      );
  } finally {
    db.exec('detach database main_db');
  }
}

type Request =
  | { id: number; op: 'insert'; rows: unknown[][] }
  | { id: number; op: 'forget'; accountId: string }
  | { id: number; op: 'adopt' };

parentPort?.on('message', (m: Request) => {
  try {
    if (m.op === 'insert') insertAll(m.rows);
    else if (m.op === 'forget') forget.run(m.accountId);
    else adopt();
    parentPort?.postMessage({ id: m.id });
  } catch (e) {
    parentPort?.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
