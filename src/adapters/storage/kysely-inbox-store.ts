import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { AccountId } from '../../core/accounts/account.ts';
import type { ConnectionStatus, Inbox, InboxId, Provider } from '../../core/inboxes/inbox.ts';
import type { Folder } from '../../core/messages/folder.ts';
import type { MessageId } from '../../core/messages/message.ts';
import type {
  InboxPatch,
  InboxStore,
  InboxWithFolders,
  InboxWithMessages,
  InboxWithPage,
  NewInbox,
  SelectedPageQuery,
} from '../../core/inboxes/inbox-store.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { lockAccount } from './row-locks.ts';
import type { Db } from './database.ts';
import { foldersOf, toFolder } from './kysely-folder-store.ts';
import {
  headlineMatches,
  headlinePage,
  likeContains,
  type KyselyMessageStore,
  toHeadline,
  toSummary,
  type HeadlineRow,
  type HeadlineShape,
} from './kysely-message-store.ts';
import type { Database, FoldersTable, InboxesTable, MessagesTable } from './schema.ts';
import { hotQuery } from './hot-query.ts';
import { bit, deleteAgainOnDeadlock, toDate } from './sql-errors.ts';

const toInbox = (r: Selectable<InboxesTable>): Inbox => ({
  id: r.id as InboxId,
  accountId: r.account_id as AccountId,
  label: r.label,
  provider: r.provider as Provider,
  email: r.email,
  imapHost: r.imap_host,
  imapPort: r.imap_port,
  imapUser: r.imap_user,
  smtpHost: r.smtp_host,
  smtpPort: r.smtp_port,
  isDemo: r.is_demo === 1,
  paused: r.paused === 1,
  connectionStatus: r.connection_status as ConnectionStatus,
  lastError: r.last_error,
  senderName: r.sender_name,
  credentialSetAt: r.credential_set_at === null ? null : toDate(r.credential_set_at),
  createdAt: toDate(r.created_at),
  updatedAt: toDate(r.updated_at),
});

// Runs on every list_inboxes call: compiled once, and `in (?)` rather than `= ?` (hot-query.ts explains why).
const inboxesOf = (db: Db) =>
  hotQuery<Selectable<InboxesTable>, { accountId: string }>(db, (p) =>
    db.kysely
      .selectFrom('inboxes')
      .selectAll()
      .where('account_id', 'in', [p('accountId')])
      .orderBy('created_at')
      .orderBy('id'),
  );

/**
 * An inbox background sync keeps fresh: connected (or the demo), not paused, of an account whose agents may act at
 * `now` — `agentAccess` (core/accounts/plan.ts) on the account's row: its payment has not failed, and it is not a trial
 * that has ended (decision 0124). The store's contract checks the two agree.
 */
const keptFresh = (eb: ExpressionBuilder<Database, 'inboxes' | 'accounts'>, now: number) =>
  eb.and([
    eb('inboxes.paused', '=', sql.lit(0)),
    eb.or([
      eb('inboxes.connection_status', '=', sql.lit('connected')),
      eb('inboxes.is_demo', '=', sql.lit(1)),
    ]),
    eb('accounts.payment_state', '<>', sql.lit('failed')),
    eb.or([
      eb('accounts.plan', '<>', sql.lit('trial')),
      eb('accounts.trial_ends_at', 'is', null),
      eb('accounts.trial_ends_at', '>', now),
    ]),
  ]);

// Every node reads it every few seconds to share out the watchers (sync-scheduler.ts): compiled once, so an idle
// service does not build it anew each time.
const syncableOf = (db: Db) =>
  hotQuery<Selectable<InboxesTable>, { now: number }>(db, (p) =>
    db.kysely
      .selectFrom('inboxes')
      .innerJoin('accounts', 'accounts.id', 'inboxes.account_id')
      .selectAll('inboxes')
      .where((eb) => keptFresh(eb, p('now')))
      .orderBy('inboxes.created_at'),
  );

// Every tool that names an inbox looks it up first: compiled once too.
const inboxOf = (db: Db) =>
  hotQuery<Selectable<InboxesTable>, { accountId: string; id: string }>(db, (p) =>
    db.kysely
      .selectFrom('inboxes')
      .selectAll()
      .where('id', 'in', [p('id')])
      .where('account_id', 'in', [p('accountId')]),
  );

// The folder's columns beside the inbox's, renamed where both tables have one.
const FOLDER_COLUMNS = [
  'folders.id as f_id',
  'folders.path as f_path',
  'folders.name as f_name',
  'folders.canonical as f_canonical',
  'folders.selected as f_selected',
  'folders.uid_validity as f_uid_validity',
  'folders.uid_next as f_uid_next',
  'folders.highest_modseq as f_highest_modseq',
  'folders.cursor as f_cursor',
  'folders.window_low as f_window_low',
  'folders.synced_at as f_synced_at',
  'folders.sync_version as f_sync_version',
] as const;

type JoinedRow = Selectable<InboxesTable> & {
  [K in Exclude<keyof FoldersTable, 'inbox_id'> as `f_${K}`]: Selectable<FoldersTable>[K] | null;
};

// Every tool that reads or changes an inbox's mail starts here: the inbox and its folders, one row per folder
// (one row with no folder when it has none yet), compiled once.
const inboxWithFoldersOf = (db: Db) =>
  hotQuery<JoinedRow, { accountId: string; id: string }>(db, (p) =>
    db.kysely
      .selectFrom('inboxes')
      .leftJoin('folders', 'folders.inbox_id', 'inboxes.id')
      .selectAll('inboxes')
      .select(FOLDER_COLUMNS)
      .where('inboxes.id', 'in', [p('id')])
      .where('inboxes.account_id', 'in', [p('accountId')])
      .orderBy('folders.path'),
  );

/** A page's columns as `getWithSelectedPage` names them (its folder is the joined folder's). */
type PageColumns = { [K in Exclude<keyof HeadlineRow, 'folder_id' | 'total'> as `m_${K}`]: HeadlineRow[K] };

/** A joined row of `getWithSelectedPage`: the inbox and a folder, one of the folder's rows of the page if any. */
type PagedRow = JoinedRow & { [K in keyof PageColumns]: PageColumns[K] | null } & {
  m_rank: number | null;
  m_total: number;
};

/** The page's row in a joined row, and its rank in the page; none on a folder without rows of the page. */
function pagedHeadline(r: PagedRow): { rank: number; row: HeadlineRow } | undefined {
  if (r.m_id === null || r.f_id === null || r.m_rank === null) return undefined;
  // A page's columns are NOT NULL: a row with the page's id has them all.
  const m = r as PagedRow & PageColumns;
  return {
    rank: r.m_rank,
    row: {
      id: m.m_id,
      folder_id: r.f_id,
      thread_id: m.m_thread_id,
      subject: m.m_subject,
      from_address: m.m_from_address,
      from_name: m.m_from_name,
      snippet: m.m_snippet,
      date: m.m_date,
      unread: m.m_unread,
      starred: m.m_starred,
      labels_json: m.m_labels_json,
      has_attachments: m.m_has_attachments,
      list_id: m.m_list_id,
      list_unsubscribe: m.m_list_unsubscribe,
      total: r.m_total,
    },
  };
}

type PageValues = { accountId: string; inboxId: string; text: string | undefined; offset: number } & Record<
  `folder${number}`,
  string
>;

/** Which folders the page spans: the ids expected to be the selected ones, or the selected ones as the statement sees them. */
type PageFolders = number | 'selected';

/**
 * The read of a listing call that names no folder, in one statement (decision 0047): `inboxWithFoldersOf`'s rows,
 * each folder's rows of the page joined to it, and the number of matches on every row (so a page past the end still
 * carries it). The page is `headlinePage`'s, over the folders given by id (which the caller checks against the
 * selected folders read with it), or over a subquery of the selected folders (always right, but the index gives no
 * order across a subquery's folders: the rows are sorted). Compiled once per shape.
 */
const inboxWithPageOf = (db: Db, shape: Omit<HeadlineShape, 'folders'> & { folders: PageFolders }) =>
  hotQuery<PagedRow, PageValues>(db, (p) => {
    const folders =
      shape.folders === 'selected'
        ? sql`select id from folders where inbox_id in (${p('inboxId')}) and selected = 1`
        : shape.folders === 0
          ? sql`null`
          : sql.join(Array.from({ length: shape.folders }, (_, i) => p(`folder${i}`)));
    const page = headlinePage(db, { ...shape, total: false }, p, folders);
    // The number of matches on every row: the inbox's rows carry it when the page has none.
    const { total } = headlineMatches(shape, p, folders);
    return (
      db.kysely
        // Read once, whatever plan joins it to the folders (one index scan, not one per folder).
        .with(
          (cte) => cte('p').materialized(),
          (qb) =>
            qb
              .selectFrom(page.select('position').as('q'))
              .selectAll('q')
              .select(
                sql<number>`row_number() over (order by q.date desc, q.position desc, q.id desc)`.as('rank'),
              ),
        )
        .selectFrom('inboxes')
        .leftJoin('folders', 'folders.inbox_id', 'inboxes.id')
        .leftJoin('p', 'p.folder_id', 'folders.id')
        .selectAll('inboxes')
        .select(FOLDER_COLUMNS)
        .select([
          'p.id as m_id',
          'p.thread_id as m_thread_id',
          'p.subject as m_subject',
          'p.from_address as m_from_address',
          'p.from_name as m_from_name',
          'p.snippet as m_snippet',
          'p.date as m_date',
          'p.unread as m_unread',
          'p.starred as m_starred',
          'p.labels_json as m_labels_json',
          'p.has_attachments as m_has_attachments',
          'p.list_id as m_list_id',
          'p.list_unsubscribe as m_list_unsubscribe',
          'p.rank as m_rank',
          total.as('m_total'),
        ])
        .where('inboxes.id', 'in', [p('inboxId')])
        .where('inboxes.account_id', 'in', [p('accountId')])
        .orderBy('folders.path')
        .orderBy('p.rank')
    );
  });

/** Every column of a messages row (`MessageStore.get` reads them all). */
const MESSAGE_COLUMNS = [
  'id',
  'inbox_id',
  'folder_id',
  'provider_ref',
  'position',
  'thread_id',
  'internet_message_id',
  'subject',
  'from_address',
  'from_name',
  'to_json',
  'snippet',
  'search_text',
  'date',
  'unread',
  'starred',
  'labels_json',
  'has_attachments',
  'size',
  'list_id',
  'list_unsubscribe',
  'list_unsubscribe_post',
] as const satisfies readonly (keyof MessagesTable)[];

/** At most this many ids are read with the inbox in one statement; more go in a statement of their own. */
const MESSAGES_WITH_INBOX = 16;

type MessageJoinedRow = JoinedRow & { [K in keyof MessagesTable as `m_${K}`]: MessagesTable[K] | null };

/**
 * `inboxWithFoldersOf`'s rows with the asked messages joined to their folder's row (a folder holding several repeats
 * for each), in one statement (decision 0047). Compiled once per number of ids.
 */
const inboxWithMessagesOf = (db: Db, count: number) =>
  hotQuery<MessageJoinedRow, Record<string, string>>(db, (p) => {
    const ids = Array.from({ length: count }, (_, i) => p(`message${String(i)}`));
    return db.kysely
      .selectFrom('inboxes')
      .leftJoin('folders', 'folders.inbox_id', 'inboxes.id')
      .leftJoin('messages', (join) =>
        join.onRef('messages.folder_id', '=', 'folders.id').on('messages.id', 'in', ids),
      )
      .selectAll('inboxes')
      .select(FOLDER_COLUMNS)
      .select(MESSAGE_COLUMNS.map((c) => sql.ref(`messages.${c}`).as(`m_${c}`)))
      .where('inboxes.id', 'in', [p('inboxId')])
      .where('inboxes.account_id', 'in', [p('accountId')])
      .orderBy('folders.path')
      .$castTo<MessageJoinedRow>();
  });

/** The message of a joined row, if one was joined to it. */
function joinedMessage(r: MessageJoinedRow): Selectable<MessagesTable> | undefined {
  if (r.m_id === null) return undefined;
  const row: Record<string, unknown> = {};
  for (const c of MESSAGE_COLUMNS) row[c] = r[`m_${c}`];
  // Every NOT NULL column is there when the id is: the row is a messages row.
  return row as unknown as Selectable<MessagesTable>;
}

/**
 * A new inbox's row. Its sender name and credential time are left to their columns' default (null: not known, none
 * given yet), so the insert reads the same on a database migrated before those columns (the migration tests seed
 * inboxes so).
 */
const inboxRow = (i: NewInbox): Omit<Selectable<InboxesTable>, 'sender_name' | 'credential_set_at'> => ({
  id: i.id,
  account_id: i.accountId,
  label: i.label,
  provider: i.provider,
  email: i.email,
  imap_host: i.imapHost,
  imap_port: i.imapPort,
  imap_user: i.imapUser,
  smtp_host: i.smtpHost,
  smtp_port: i.smtpPort,
  is_demo: bit(i.isDemo),
  paused: bit(i.paused ?? false),
  connection_status: i.connectionStatus,
  last_error: null,
  created_at: i.createdAt.getTime(),
  updated_at: i.createdAt.getTime(),
});

/**
 * The folders of joined rows that come by folder path, each once (a folder's row repeats for each row joined to it);
 * none for the one row of an inbox without folders.
 */
function joinedFolders(rows: readonly JoinedRow[]): Folder[] {
  const folders: Folder[] = [];
  for (const r of rows) {
    if (r.f_id !== null && r.f_id === folders.at(-1)?.id) continue;
    const f = joinedFolder(r);
    if (f !== undefined) folders.push(f);
  }
  return folders;
}

/** The folder of one joined row; none on the one row of an inbox without folders. */
function joinedFolder(r: JoinedRow): Folder | undefined {
  const { f_id: id, f_path: path, f_name: name, f_selected: selected, f_sync_version: version } = r;
  if (id === null || path === null || name === null || selected === null || version === null)
    return undefined;
  return toFolder({
    id,
    inbox_id: r.id,
    path,
    name,
    canonical: r.f_canonical,
    selected,
    uid_validity: r.f_uid_validity,
    uid_next: r.f_uid_next,
    highest_modseq: r.f_highest_modseq,
    cursor: r.f_cursor,
    window_low: r.f_window_low,
    synced_at: r.f_synced_at,
    sync_version: version,
  });
}

export class KyselyInboxStore implements InboxStore {
  private readonly db: Db['kysely'];
  private readonly dialect: Db['dialect'];
  private readonly listQuery: ReturnType<typeof inboxesOf>;
  private readonly syncableQuery: ReturnType<typeof syncableOf>;
  private readonly getQuery: ReturnType<typeof inboxOf>;
  private readonly withFoldersQuery: ReturnType<typeof inboxWithFoldersOf>;
  private readonly foldersQuery: ReturnType<typeof foldersOf>;
  private readonly full: Db;
  /** Where `getWithSelectedPage` and `getWithMessages` read their messages when not in the inbox's statement. */
  private readonly messages: KyselyMessageStore;
  /** By the page's shape (its SQL depends on it, never on the values). */
  private readonly pageQueries = new Map<string, ReturnType<typeof inboxWithPageOf>>();
  /** By the number of ids (at most MESSAGES_WITH_INBOX). */
  private readonly messageQueries = new Map<number, ReturnType<typeof inboxWithMessagesOf>>();
  /** Each inbox's selected folders as this node last read them (`getWithSelectedPage`): a guess, always checked. */
  private readonly selectedSeen = new Map<InboxId, readonly string[]>();
  constructor(db: Db, messages: KyselyMessageStore) {
    this.db = db.kysely;
    this.full = db;
    this.messages = messages;
    this.dialect = db.dialect;
    this.listQuery = inboxesOf(db);
    this.syncableQuery = syncableOf(db);
    this.getQuery = inboxOf(db);
    this.withFoldersQuery = inboxWithFoldersOf(db);
    this.foldersQuery = foldersOf(db);
  }

  async create(i: NewInbox): Promise<Inbox> {
    const row = inboxRow(i);
    await this.db.insertInto('inboxes').values(row).execute();
    return toInbox({ ...row, sender_name: null, credential_set_at: null });
  }

  async createWithinLimit(
    i: NewInbox,
    maxPerAccount: number,
    sameAs?: (existing: Inbox) => boolean,
  ): Promise<Result<{ inbox: Inbox; added: boolean }, 'limit_reached'>> {
    return this.db.transaction().execute(async (tx) => {
      await lockAccount(tx, this.dialect, i.accountId);
      // At most `maxPerAccount` rows: read whole, so the same-mailbox rule stays the caller's.
      const rows = await tx.selectFrom('inboxes').selectAll().where('account_id', '=', i.accountId).execute();
      const same = sameAs === undefined ? undefined : rows.map(toInbox).find(sameAs);
      if (same !== undefined) return ok({ inbox: same, added: false });
      if (rows.length >= maxPerAccount) return err('limit_reached' as const);
      const row = inboxRow(i);
      await tx.insertInto('inboxes').values(row).execute();
      return ok({ inbox: toInbox({ ...row, sender_name: null, credential_set_at: null }), added: true });
    });
  }

  async get(accountId: AccountId, id: InboxId): Promise<Inbox | undefined> {
    const [r] = await this.getQuery({ accountId, id });
    return r && toInbox(r);
  }

  async getWithFolders(accountId: AccountId, id: InboxId): Promise<InboxWithFolders | undefined> {
    if (this.dialect === 'sqlite') {
      // In this process a statement is no round trip: the inbox's row and its folders' rows, each read by a
      // statement of its own, cost less than the join that repeats the inbox's columns on every folder's row.
      const inbox = await this.get(accountId, id);
      if (inbox === undefined) return undefined;
      return { inbox, folders: (await this.foldersQuery({ inboxId: id })).map(toFolder) };
    }
    const rows = await this.withFoldersQuery({ accountId, id });
    const [first] = rows;
    if (first === undefined) return undefined;
    return { inbox: toInbox(first), folders: joinedFolders(rows) };
  }

  async getWithSelectedPage(
    accountId: AccountId,
    id: InboxId,
    q: SelectedPageQuery,
  ): Promise<InboxWithPage | undefined> {
    if (this.dialect === 'sqlite') {
      // In this process, a statement is no round trip: the two reads, each a statement made for its own rows, cost
      // less than the one joined (decision 0047).
      const place = await this.getWithFolders(accountId, id);
      if (place === undefined) return undefined;
      const folderIds = place.folders.filter((f) => f.selected).map((f) => f.id);
      return { ...place, page: await this.messages.headlines(id, { ...q, folderIds }) };
    }
    const text = q.text !== undefined && q.text !== '' ? likeContains(q.text) : undefined;
    const values: PageValues = { accountId, inboxId: id, text, offset: q.offset };
    // The selected folders as this node last read them: right nearly always, and checked against the folders read
    // in the same statement. When they are not (none read yet, or the selection changed), the page is read again
    // over the selection as the statement sees it.
    const expected = this.selectedSeen.get(id);
    if (expected !== undefined) {
      expected.forEach((f, i) => (values[`folder${i}`] = f));
      const read = await this.pageQuery(q, expected.length)(values);
      if (read === undefined) return undefined;
      const selected = read.folders.filter((f) => f.selected).map((f) => f.id);
      if (selected.length === expected.length && selected.every((f) => expected.includes(f))) return read;
    }
    const read = await this.pageQuery(q, 'selected')(values);
    if (read === undefined) this.selectedSeen.delete(id);
    else {
      if (this.selectedSeen.size >= 10_000) this.selectedSeen.clear();
      this.selectedSeen.set(
        id,
        read.folders.filter((f) => f.selected).map((f) => f.id),
      );
    }
    return read;
  }

  /** The statement of `getWithSelectedPage` for this query's shape, compiled once, and its rows put together. */
  private pageQuery(q: SelectedPageQuery, folders: PageFolders) {
    const shape = {
      unreadOnly: q.unreadOnly === true,
      text: q.text !== undefined && q.text !== '',
      limit: q.limit,
      folders,
    };
    const key = `${String(shape.unreadOnly)}/${String(shape.text)}/${String(shape.limit)}/${String(folders)}`;
    let run = this.pageQueries.get(key);
    if (run === undefined) {
      if (this.pageQueries.size >= 256) this.pageQueries.clear();
      run = inboxWithPageOf(this.full, shape);
      this.pageQueries.set(key, run);
    }
    const statement = run;
    return async (values: PageValues): Promise<InboxWithPage | undefined> => {
      const rows = await statement(values);
      const [first] = rows;
      if (first === undefined) return undefined;
      // Each folder's rows of the page come in page order under it: the page is put in order by rank.
      const items = rows
        .flatMap((r) => pagedHeadline(r) ?? [])
        .sort((a, b) => a.rank - b.rank)
        .map((x) => toHeadline(x.row));
      return { inbox: toInbox(first), folders: joinedFolders(rows), page: { items, total: first.m_total } };
    };
  }

  async getWithMessages(
    accountId: AccountId,
    id: InboxId,
    messageIds: readonly MessageId[],
  ): Promise<InboxWithMessages | undefined> {
    const ids = [...new Set(messageIds)];
    if (this.dialect === 'sqlite' || ids.length === 0 || ids.length > MESSAGES_WITH_INBOX) {
      // In this process (SQLite), or too many ids for one shape of statement: the inbox, then the messages.
      const place = await this.getWithFolders(accountId, id);
      if (place === undefined) return undefined;
      return { ...place, messages: await this.messages.getMany(id, ids) };
    }
    let run = this.messageQueries.get(ids.length);
    if (run === undefined) {
      run = inboxWithMessagesOf(this.full, ids.length);
      this.messageQueries.set(ids.length, run);
    }
    const values: Record<string, string> = { accountId, inboxId: id };
    ids.forEach((m, i) => (values[`message${String(i)}`] = m));
    const rows = await run(values);
    const [first] = rows;
    if (first === undefined) return undefined;
    const messages = rows.flatMap((r) => {
      const m = joinedMessage(r);
      return m === undefined ? [] : [toSummary(m)];
    });
    return { inbox: toInbox(first), folders: joinedFolders(rows), messages };
  }

  async list(accountId: AccountId): Promise<Inbox[]> {
    return (await this.listQuery({ accountId })).map(toInbox);
  }

  async countByState(): Promise<{ provider: string; state: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('inboxes')
      .select(['provider', 'paused', 'connection_status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy(['provider', 'paused', 'connection_status'])
      .execute();
    const counts = new Map<string, { provider: string; state: string; count: number }>();
    for (const r of rows) {
      const state = r.paused === 1 ? 'paused' : r.connection_status;
      const key = `${r.provider}\u0000${state}`;
      const seen = counts.get(key);
      if (seen === undefined) counts.set(key, { provider: r.provider, state, count: r.n });
      else seen.count += r.n;
    }
    return [...counts.values()];
  }

  async listSyncable(now: Date): Promise<Inbox[]> {
    return (await this.syncableQuery({ now: now.getTime() })).map(toInbox);
  }

  async syncable(id: InboxId, now: Date): Promise<Inbox | undefined> {
    const r = await this.db
      .selectFrom('inboxes')
      .innerJoin('accounts', 'accounts.id', 'inboxes.account_id')
      .selectAll('inboxes')
      .where('inboxes.id', '=', id)
      .where((eb) => keptFresh(eb, now.getTime()))
      .executeTakeFirst();
    return r && toInbox(r);
  }

  async update(accountId: AccountId, id: InboxId, patch: InboxPatch, now: Date): Promise<Inbox | undefined> {
    const r = await this.db
      .updateTable('inboxes')
      .set({
        ...(patch.label !== undefined && { label: patch.label }),
        ...(patch.email !== undefined && { email: patch.email }),
        ...(patch.paused !== undefined && { paused: bit(patch.paused) }),
        ...(patch.connectionStatus !== undefined && { connection_status: patch.connectionStatus }),
        ...(patch.lastError !== undefined && { last_error: patch.lastError }),
        ...(patch.senderName !== undefined && { sender_name: patch.senderName }),
        ...(patch.credentialSetAt !== undefined && { credential_set_at: patch.credentialSetAt.getTime() }),
        ...(patch.servers !== undefined && {
          imap_host: patch.servers.imapHost,
          imap_port: patch.servers.imapPort,
          smtp_host: patch.servers.smtpHost,
          smtp_port: patch.servers.smtpPort,
        }),
        updated_at: now.getTime(),
      })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returningAll()
      .executeTakeFirst();
    return r && toInbox(r);
  }

  async learnSenderName(
    accountId: AccountId,
    id: InboxId,
    name: string,
    now: Date,
  ): Promise<string | undefined> {
    // One statement: a name the person sets at the same moment is either kept or comes after this one.
    const r = await this.db
      .updateTable('inboxes')
      .set({ sender_name: sql<string>`coalesce(sender_name, ${name})`, updated_at: now.getTime() })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .returning('sender_name')
      .executeTakeFirst();
    return r?.sender_name ?? undefined;
  }

  async markNeedsReconnect(
    accountId: AccountId,
    id: InboxId,
    reason: string,
    credentialRead: Date,
    now: Date,
  ): Promise<boolean> {
    // The vault's row is read in the same statement as the inbox is written, so no reconnection fits between the
    // check and the write (a SELECT first and an UPDATE after left that window open).
    const r = await this.db
      .updateTable('inboxes')
      .set({ connection_status: 'needs_reconnect', last_error: reason, updated_at: now.getTime() })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('inbox_credentials')
              .select('inbox_id')
              .whereRef('inbox_credentials.inbox_id', '=', 'inboxes.id')
              .where('inbox_credentials.updated_at', '>', credentialRead.getTime()),
          ),
        ),
      )
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async delete(accountId: AccountId, id: InboxId): Promise<boolean> {
    const r = await deleteAgainOnDeadlock(() =>
      this.db
        .deleteFrom('inboxes')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst(),
    );
    return r.numDeletedRows > 0n;
  }
}
