import type { Transaction } from 'kysely';
import { InboxGoneError } from '../../../core/inboxes/inbox-errors.ts';
import { FolderGoneError } from '../../../core/mail/mail-ports.ts';
import type { CanonicalFolder } from '../../../core/messages/folder.ts';
import type { Db } from '../../storage/database.ts';
import { inboxRowWrite } from '../../storage/sql-errors.ts';
import type { Database } from '../../storage/schema.ts';
import type { DemoMessage } from './demo-message.ts';

/** The demo mailbox's folders: Gmail-like names, every canonical role present. */
export const DEMO_FOLDERS: readonly { path: string; canonical: CanonicalFolder }[] = [
  { path: 'INBOX', canonical: 'inbox' },
  { path: 'Sent', canonical: 'sent' },
  { path: 'Drafts', canonical: 'drafts' },
  { path: 'Archive', canonical: 'archive' },
  { path: 'Spam', canonical: 'spam' },
  { path: 'Trash', canonical: 'trash' },
  { path: 'Screened', canonical: 'screened' },
];

export type StoredDemoMessage = Omit<DemoMessage, 'folder' | 'minutesAgo'> & { readonly date: string };

export interface DemoRow {
  readonly uid: number;
  readonly flags: readonly string[];
  readonly date: Date;
  readonly doc: StoredDemoMessage;
  readonly modseq: number;
}

/**
 * The demo mailbox in SQL, with IMAP's bookkeeping (per-folder UIDs, UIDVALIDITY, a modseq bumped on every change)
 * so the real sync engine works on it unchanged. Writes here are the demo's "provider": nothing leaves the database.
 */
export class DemoMailbox {
  private readonly db: Db['kysely'];
  private readonly dialect: Db['dialect'];
  readonly inboxId: string;
  constructor(db: Db, inboxId: string) {
    this.db = db.kysely;
    this.dialect = db.dialect;
    this.inboxId = inboxId;
  }

  /** Builds the mailbox from sample messages, dated relative to `now`. */
  async seed(messages: readonly DemoMessage[], now: Date): Promise<void> {
    const byFolder = new Map<string, DemoMessage[]>();
    for (const m of messages) byFolder.set(m.folder, [...(byFolder.get(m.folder) ?? []), m]);
    await this.db.transaction().execute(async (tx) => {
      for (const f of DEMO_FOLDERS) {
        const list = (byFolder.get(f.canonical) ?? []).slice().sort((a, b) => b.minutesAgo - a.minutesAgo);
        await tx
          .insertInto('demo_folders')
          .values({
            inbox_id: this.inboxId,
            path: f.path,
            canonical: f.canonical,
            uid_validity: String(Math.floor(now.getTime() / 1000)),
            uid_next: list.length + 1,
            modseq: 1,
          })
          .execute();
        const rows = list.map((m, i) => {
          const { folder: _folder, minutesAgo, ...doc } = m;
          const date = new Date(now.getTime() - minutesAgo * 60_000);
          const flags = [
            ...(m.unread ? [] : ['\\Seen']),
            ...(m.starred === true ? ['\\Flagged'] : []),
            ...(m.labels ?? []),
          ];
          return {
            inbox_id: this.inboxId,
            folder_path: f.path,
            uid: i + 1,
            flags_json: JSON.stringify(flags),
            internal_date: date.getTime(),
            doc_json: JSON.stringify({ ...doc, date: date.toISOString() }),
            modseq: 1,
          };
        });
        for (let i = 0; i < rows.length; i += 200)
          await tx
            .insertInto('demo_messages')
            .values(rows.slice(i, i + 200))
            .execute();
      }
    });
  }

  /** A folder like IMAP CREATE makes: empty, its role read from its name as the IMAP adapter does. */
  async createFolder(path: string): Promise<void> {
    // For an inbox removed meanwhile: InboxGoneError (decision 0064).
    await inboxRowWrite(
      this.db
        .insertInto('demo_folders')
        .values({
          inbox_id: this.inboxId,
          path,
          canonical: path.toLowerCase() === 'screened' ? 'screened' : null,
          uid_validity: String(Math.floor(Date.now() / 1000)),
          uid_next: 1,
          modseq: 1,
        })
        .onConflict((oc) => oc.columns(['inbox_id', 'path']).doNothing())
        .execute(),
    );
  }

  async folders() {
    return this.db.selectFrom('demo_folders').selectAll().where('inbox_id', '=', this.inboxId).execute();
  }

  async folder(path: string) {
    return this.db
      .selectFrom('demo_folders')
      .selectAll()
      .where('inbox_id', '=', this.inboxId)
      .where('path', '=', path)
      .executeTakeFirst();
  }

  async rows(
    path: string,
    q: {
      fromUid?: number;
      belowUid?: number;
      uids?: readonly number[];
      newest?: number;
      changedSince?: number;
    } = {},
  ): Promise<DemoRow[]> {
    let query = this.db
      .selectFrom('demo_messages')
      .selectAll()
      .where('inbox_id', '=', this.inboxId)
      .where('folder_path', '=', path);
    if (q.fromUid !== undefined) query = query.where('uid', '>=', q.fromUid);
    if (q.belowUid !== undefined) query = query.where('uid', '<', q.belowUid);
    if (q.uids !== undefined) {
      if (q.uids.length === 0) return [];
      query = query.where('uid', 'in', [...q.uids]);
    }
    if (q.changedSince !== undefined) query = query.where('modseq', '>', q.changedSince);
    query = query.orderBy('uid', 'desc');
    if (q.newest !== undefined) query = query.limit(q.newest);
    const rows = await query.execute();
    return rows.map((r) => ({
      uid: r.uid,
      flags: JSON.parse(r.flags_json) as string[],
      date: new Date(r.internal_date),
      doc: JSON.parse(r.doc_json) as StoredDemoMessage,
      modseq: r.modseq,
    }));
  }

  async uids(path: string, fromUid: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('demo_messages')
      .select('uid')
      .where('inbox_id', '=', this.inboxId)
      .where('folder_path', '=', path)
      .where('uid', '>=', fromUid)
      .execute();
    return rows.map((r) => r.uid);
  }

  /** Appends a message; returns its new UID (UIDPLUS-like). */
  async append(path: string, doc: StoredDemoMessage, flags: readonly string[], date: Date): Promise<number> {
    return this.change((tx) => this.appendIn(tx, path, doc, flags, date));
  }

  private async appendIn(
    tx: Transaction<Database>,
    path: string,
    doc: StoredDemoMessage,
    flags: readonly string[],
    date: Date,
  ): Promise<number> {
    // The folder's row first, as an UPDATE: it takes the row's lock, so appends to one folder at once each get
    // their own UID and modseq (a SELECT first let two read the same uid_next on PostgreSQL).
    const f = await tx
      .updateTable('demo_folders')
      .set((eb) => ({ uid_next: eb('uid_next', '+', 1), modseq: eb('modseq', '+', 1) }))
      .where('inbox_id', '=', this.inboxId)
      .where('path', '=', path)
      .returning(['uid_next', 'modseq'])
      .executeTakeFirst()
      .then((row) => this.present(tx, row, path));
    const uid = f.uid_next - 1;
    await tx
      .insertInto('demo_messages')
      .values({
        inbox_id: this.inboxId,
        folder_path: path,
        uid,
        flags_json: JSON.stringify(flags),
        internal_date: date.getTime(),
        doc_json: JSON.stringify(doc),
        modseq: f.modseq,
      })
      .execute();
    return uid;
  }

  async setFlags(path: string, uid: number, flags: readonly string[]): Promise<boolean> {
    return this.change(async (tx) => {
      // The folder's modseq bumped first, holding its row's lock: flag changes at once each get their own.
      const f = await tx
        .updateTable('demo_folders')
        .set((eb) => ({ modseq: eb('modseq', '+', 1) }))
        .where('inbox_id', '=', this.inboxId)
        .where('path', '=', path)
        .returning('modseq')
        .executeTakeFirst()
        .then((row) => this.present(tx, row, path));
      const r = await tx
        .updateTable('demo_messages')
        .set({ flags_json: JSON.stringify(flags), modseq: f.modseq })
        .where('inbox_id', '=', this.inboxId)
        .where('folder_path', '=', path)
        .where('uid', '=', uid)
        .executeTakeFirst();
      return r.numUpdatedRows === 1n;
    });
  }

  async expunge(path: string, uid: number): Promise<boolean> {
    const r = await this.change((tx) =>
      tx
        .deleteFrom('demo_messages')
        .where('inbox_id', '=', this.inboxId)
        .where('folder_path', '=', path)
        .where('uid', '=', uid)
        .executeTakeFirst(),
    );
    return r.numDeletedRows === 1n;
  }

  /**
   * MOVE, atomic as on an IMAP server: the message leaves the source and appears in the target in one transaction,
   * and of two concurrent moves of one UID only the first finds it (the other gets undefined, as UID MOVE of an
   * expunged UID moves nothing).
   */
  async move(path: string, uid: number, to: string): Promise<number | undefined> {
    return this.change(async (tx) => {
      const row = await tx
        .deleteFrom('demo_messages')
        .where('inbox_id', '=', this.inboxId)
        .where('folder_path', '=', path)
        .where('uid', '=', uid)
        .returningAll()
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return this.appendIn(
        tx,
        to,
        JSON.parse(row.doc_json) as StoredDemoMessage,
        JSON.parse(row.flags_json) as string[],
        new Date(row.internal_date),
      );
    });
  }

  /**
   * A change to the mailbox, in one transaction. On PostgreSQL it takes the inbox's row first (a key-share lock, which
   * changes share): a removal of the inbox, whose cascade would otherwise take the mailbox's rows in another order
   * than the change and deadlock with it, waits for the changes under way, and a change after the removal finds no
   * inbox (`InboxGoneError`). Decision 0064. SQLite runs one write at a time.
   */
  private async change<T>(work: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (tx) => {
      if (this.dialect === 'postgres' && !(await this.inboxHere(tx, { keyShare: true })))
        throw new InboxGoneError();
      return work(tx);
    });
  }

  /** A folder's row a change needs; none is the folder's absence (below). */
  private async present<T>(tx: Transaction<Database>, row: T | undefined, path: string): Promise<T> {
    if (row !== undefined) return row;
    throw await this.absence(path, tx);
  }

  /**
   * Why a folder's row is not there: the inbox was removed meanwhile and its mailbox with it (`InboxGoneError`,
   * answered `inbox_not_found`, as an index write would find), or the mailbox has no such folder (`FolderGoneError`,
   * as an IMAP server refuses a mailbox that does not exist). Decision 0064.
   */
  async absence(path: string, db: Db['kysely'] | Transaction<Database> = this.db): Promise<Error> {
    return (await this.inboxHere(db))
      ? new FolderGoneError(`The folder ${path} is not in this mailbox.`)
      : new InboxGoneError();
  }

  /** Whether the inbox's row is still there; `keyShare` (PostgreSQL) holds it so that no removal runs meanwhile. */
  private async inboxHere(
    db: Db['kysely'] | Transaction<Database>,
    o: { keyShare?: boolean } = {},
  ): Promise<boolean> {
    const q = db.selectFrom('inboxes').select('id').where('id', '=', this.inboxId);
    return (await (o.keyShare === true ? q.forKeyShare() : q).executeTakeFirst()) !== undefined;
  }

  /** Tests: a new UIDVALIDITY (as when a server rebuilds a folder), keeping the messages under new UIDs. */
  async resetUidValidity(path: string): Promise<void> {
    const f = await this.folder(path);
    if (f === undefined) return;
    await this.db
      .updateTable('demo_folders')
      .set({ uid_validity: String(Number(f.uid_validity) + 1), modseq: f.modseq + 1 })
      .where('inbox_id', '=', this.inboxId)
      .where('path', '=', path)
      .execute();
  }
}
