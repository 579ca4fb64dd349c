import { chmodSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { AccountId } from '../../core/accounts/account.ts';
import type { AuditEntry, AuditLog } from '../../core/audit/audit-log.ts';
import type { Selectable } from 'kysely';
import { AUDIT_COLUMNS, prepareAuditFile } from './audit-file-schema.ts';
import { fromAuditRow, toAuditRow } from './audit-rows.ts';
import type { AuditLogTable } from './schema.ts';

/** The audit file beside a SQLite database: `inbox-triage.db` → `inbox-triage-audit.db`. */
export const auditFilePath = (databasePath: string): string =>
  `${databasePath.replace(/\.(db|sqlite3?)$/, '')}-audit.db`;

/**
 * The audit log of a file-backed SQLite service, in a database file of its own written by a worker thread
 * (decision 0012). Every tool call writes a row, and committing them was the largest cost of an MCP call left on
 * the service's thread (~9%); here the thread only hands rows over and waits for the commit, so an answer still
 * never precedes its audit row. A file of its own because two writers on one SQLite file would make the
 * service's thread sleep in SQLite's busy handler whenever it wrote during an audit commit.
 *
 * Reads (Settings → Activity) use a connection of this thread; WAL lets them run beside the writer. Rows an older
 * version kept in the main database are moved here when the writer starts, and rows of accounts deleted from the
 * main database are dropped then too (`forget` does it at once; this catches a crash in between).
 */
export class SqliteFileAuditLog implements AuditLog {
  private readonly path: string;
  private readonly mainPath: string;
  private readonly reader: BetterSqlite3.Database;
  private writer: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private failed: Error | undefined;
  private last: Promise<unknown> = Promise.resolve();
  private report: (e: Error) => void = () => undefined;

  constructor(mainPath: string) {
    this.mainPath = mainPath;
    this.path = auditFilePath(mainPath);
    this.reader = new BetterSqlite3(this.path);
    chmodSync(this.path, 0o600); // agent activity is personal data, like the database beside it
    prepareAuditFile(this.reader);
  }

  record(entry: AuditEntry): Promise<void> {
    return this.recordMany([entry]);
  }

  /** Resolves once the rows are committed. */
  recordMany(entries: readonly AuditEntry[]): Promise<void> {
    const rows = entries.map((e) => {
      const row = toAuditRow(e);
      return AUDIT_COLUMNS.map((c) => row[c]);
    });
    return this.send({ op: 'insert', rows });
  }

  /** Deletes an account's rows (the account itself is deleted from the main database). */
  forget(accountId: AccountId): Promise<void> {
    return this.send({ op: 'forget', accountId });
  }

  recent(accountId: AccountId, limit: number): Promise<AuditEntry[]> {
    const rows = this.reader
      .prepare('select * from audit_log where account_id = ? order by at desc, id desc limit ?')
      .all(accountId, limit) as Selectable<AuditLogTable>[];
    return Promise.resolve(rows.map(fromAuditRow));
  }

  /** Where a failure no caller sees goes (moving rows from an older version): the service logs it. */
  reportProblemsTo(report: (e: Error) => void): void {
    this.report = report;
  }

  /**
   * Takes rows until the end of this turn (the batching in front of it hands a turn's rows over then), waits
   * for all of them to be committed (the writer answers in order), then stops the writer.
   */
  async close(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.failed ??= new Error('the audit log is closed');
    await this.last;
    await this.writer?.terminate();
    this.reader.close();
  }

  private send(
    message: { op: 'insert'; rows: unknown[][] } | { op: 'forget'; accountId: string },
  ): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    const writer = (this.writer ??= this.startWriter());
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      writer.postMessage({ ...message, id });
    });
    this.last = done.catch(() => undefined);
    return done;
  }

  private startWriter(): Worker {
    const writer = new Worker(new URL('./audit-writer-worker.ts', import.meta.url), {
      workerData: { path: this.path, mainPath: this.mainPath },
    });
    writer.unref();
    writer.on('message', (m: { id: number; error?: string }) => {
      if (m.id === 0) {
        // Adoption: its failure is no caller's; the rows stay where they were and the next start tries again.
        if (m.error !== undefined) this.report(new Error(`moving audit rows failed: ${m.error}`));
        return;
      }
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error === undefined) w?.resolve();
      else w?.reject(new Error(`audit write failed: ${m.error}`));
    });
    // A writer that dies (an exception outside a request, out of memory) fails what it was handed, which the
    // callers log; the next rows start a new one, which adopts and sweeps again. Closing stops it for good.
    let reported = false;
    const stop = (e: Error) => {
      if (this.writer === writer) this.writer = undefined;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
      if (this.failed === undefined && !reported) {
        reported = true;
        this.report(
          new Error(`the audit writer stopped (${e.message}); a new one starts with the next rows`),
        );
      }
    };
    writer.on('error', stop);
    writer.once('exit', () => {
      stop(this.failed ?? new Error('the audit writer stopped'));
    });
    writer.postMessage({ id: 0, op: 'adopt' });
    return writer;
  }
}
