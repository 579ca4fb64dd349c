import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { FolderId } from '../../core/messages/folder.ts';
import type { Address, MessageId, MessageSummary } from '../../core/messages/message.ts';
import type {
  FlagUpdate,
  HeadlinePage,
  HeadlineQuery,
  KnownRef,
  MessageHeadline,
  MessagePage,
  MessageQuery,
  MessageStore,
} from '../../core/messages/message-store.ts';
import { SENDERS_OF_MAX } from '../../core/messages/message-store.ts';
import { addressKey, domainKey } from '../../core/messages/address-key.ts';
import type { Db } from './database.ts';
import { hotBatch, hotQuery, type Param } from './hot-query.ts';
import type { MessagesTable } from './schema.ts';
import { searchFold } from './search-fold.ts';
import { bit, isForeignKeyViolation, isUniqueViolation, toDate } from './sql-errors.ts';
import { InboxGoneError } from '../../core/inboxes/inbox-errors.ts';

// 23 columns a row: 500 rows stay far below SQLite's and PostgreSQL's bound-parameter limits.
const UPSERT_CHUNK = 500;

type PreviewColumns = Pick<
  Selectable<MessagesTable>,
  | 'id'
  | 'folder_id'
  | 'thread_id'
  | 'subject'
  | 'from_address'
  | 'from_name'
  | 'snippet'
  | 'date'
  | 'unread'
  | 'starred'
  | 'labels_json'
  | 'has_attachments'
>;

/** What a summary and a listing's headline read alike from a row. */
const previewOf = (r: PreviewColumns) => ({
  id: r.id as MessageId,
  folderId: r.folder_id as FolderId,
  threadId: r.thread_id,
  subject: r.subject,
  from: { address: r.from_address, name: r.from_name },
  snippet: r.snippet,
  date: toDate(r.date),
  unread: r.unread === 1,
  starred: r.starred === 1,
  labels: JSON.parse(r.labels_json) as string[],
  hasAttachments: r.has_attachments === 1,
});

/** A messages row as the core sees it; other stores that join messages use it too. */
export const toSummary = (r: Selectable<MessagesTable>): MessageSummary => ({
  ...previewOf(r),
  inboxId: r.inbox_id as InboxId,
  providerRef: r.provider_ref,
  position: r.position,
  internetMessageId: r.internet_message_id,
  to: JSON.parse(r.to_json) as Address[],
  size: r.size,
  listId: r.list_id,
  listUnsubscribe: r.list_unsubscribe,
  listUnsubscribePost: r.list_unsubscribe_post === 1,
});

const toRow = (m: MessageSummary): Selectable<MessagesTable> => ({
  id: m.id,
  inbox_id: m.inboxId,
  folder_id: m.folderId,
  provider_ref: m.providerRef,
  position: m.position,
  thread_id: m.threadId,
  internet_message_id: m.internetMessageId,
  subject: m.subject,
  from_address: m.from.address.toLowerCase(),
  from_name: m.from.name,
  to_json: JSON.stringify(m.to),
  snippet: m.snippet,
  search_text: searchFold(`${m.subject}\n${m.from.name} <${m.from.address}>\n${m.snippet}`),
  date: m.date.getTime(),
  unread: bit(m.unread),
  starred: bit(m.starred),
  labels_json: JSON.stringify(m.labels),
  has_attachments: bit(m.hasAttachments),
  size: storableSize(m.size),
  list_id: m.listId,
  list_unsubscribe: m.listUnsubscribe,
  list_unsubscribe_post: bit(m.listUnsubscribePost),
});

/** The largest size the column holds on both engines (PostgreSQL's integer). */
const MAX_SIZE = 2 ** 31 - 1;

/**
 * A size as the mail server said it, kept within the column: more than 2 GiB is kept as the most it holds, less than
 * nothing (or not a number) as 0 — on PostgreSQL it failed the insert of the whole batch, and the sync with it.
 */
const storableSize = (size: number): number =>
  Number.isFinite(size) ? Math.min(MAX_SIZE, Math.max(0, Math.trunc(size))) : 0;

/** The inserted columns, in the order their parameters appear in the compiled statement. */

// Compiled once per row count (hot-query.ts): Kysely would rebuild the 22-column statement for every chunk.
const upsertStatement = (db: Db) =>
  hotBatch<Selectable<MessagesTable>>(db, (rows) =>
    db.kysely
      .insertInto('messages')
      .values([...rows])
      .onConflict((oc) =>
        oc.columns(['folder_id', 'provider_ref']).doUpdateSet((eb) => ({
          position: eb.ref('excluded.position'),
          thread_id: eb.ref('excluded.thread_id'),
          unread: eb.ref('excluded.unread'),
          starred: eb.ref('excluded.starred'),
          labels_json: eb.ref('excluded.labels_json'),
          subject: eb.ref('excluded.subject'),
          snippet: eb.ref('excluded.snippet'),
          search_text: eb.ref('excluded.search_text'),
        })),
      ),
  );

type FlagColumns = Pick<Selectable<MessagesTable>, 'unread' | 'starred' | 'labels_json'>;

/** LIKE pattern for a literal substring, folded as the index is: %, _ and the escape character itself are escaped. */
export const likeContains = (s: string): string => `%${searchFold(s).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export type HeadlineRow = PreviewColumns &
  Pick<Selectable<MessagesTable>, 'list_id' | 'list_unsubscribe'> & { total: number };

export const toHeadline = (r: HeadlineRow): MessageHeadline => ({
  ...previewOf(r),
  isList: r.list_id !== null || r.list_unsubscribe !== null,
});

/** The shape of a listing statement: it depends on these, never on the values. */
export interface HeadlineShape {
  readonly folders: number;
  readonly unreadOnly: boolean;
  readonly text: boolean;
  /** Written into the SQL: SQLite re-plans a statement whose LIMIT is bound on every run (hot-query.ts). */
  readonly limit: number;
}

type HeadlineValues = { inboxId: string; text: string | undefined; offset: number };

/** A listing's filter, and the number of its matches as a scalar subquery. */
export function headlineMatches(
  shape: Omit<HeadlineShape, 'folders' | 'limit'>,
  p: Param<HeadlineValues>,
  folders: RawBuilder<unknown>,
) {
  const filter = sql.join(
    [
      sql`inbox_id in (${p('inboxId')})`,
      sql`folder_id in (${folders})`,
      ...(shape.unreadOnly ? [sql`unread = 1`] : []),
      ...(shape.text ? [sql`search_text like ${p('text')} escape '\\'`] : []),
    ],
    sql` and `,
  );
  // The folders are checked to be the inbox's, as the page's rows are: no count is read across inboxes.
  const keptTotal = sql`select coalesce(sum(c.${sql.ref(shape.unreadOnly ? 'unread' : 'messages')}), 0)
    from folder_counts c join folders f on f.id = c.folder_id
    where f.inbox_id in (${p('inboxId')}) and c.folder_id in (${folders})`;
  return {
    filter,
    total: shape.text
      ? sql<number>`(select count(*) from messages where ${filter})`
      : sql<number>`(${keptTotal})`,
  };
}

/**
 * One listing page in one statement (decision 0026): the preview columns of the page's rows, newest first, with the
 * number of matches in a scalar subquery. Without a text filter that number is the sum of the folders' kept counts
 * (decision 0036: a few rows, whatever the folders hold); with one, the matches are counted from the listing index.
 * `folders` is the page's folder ids as SQL: a list of parameters, or a subquery (decision 0047). With `total: false`
 * each row's count is 0, for a caller that counts once itself. The builder of both `headlines` and
 * `KyselyInboxStore.getWithSelectedPage`.
 */
export function headlinePage(
  db: Db,
  shape: Omit<HeadlineShape, 'folders'> & { readonly total?: false },
  p: Param<HeadlineValues>,
  folders: RawBuilder<unknown>,
) {
  const { filter, total } = headlineMatches(shape, p, folders);
  return db.kysely
    .selectFrom('messages')
    .select([
      'id',
      'folder_id',
      'thread_id',
      'subject',
      'from_address',
      'from_name',
      'snippet',
      'date',
      'unread',
      'starred',
      'labels_json',
      'has_attachments',
      'list_id',
      'list_unsubscribe',
      shape.total === false ? sql<number>`0`.as('total') : total.as('total'),
    ])
    .where(sql<boolean>`${filter}`)
    .orderBy('date', 'desc')
    .orderBy('position', 'desc')
    .orderBy('id', 'desc')
    .limit(sql.lit(shape.limit))
    .offset(p('offset'));
}

function headlineStatement(db: Db, shape: HeadlineShape) {
  return hotQuery<HeadlineRow, Record<string, unknown>>(db, (p) =>
    headlinePage(
      db,
      shape,
      p as Param<HeadlineValues>,
      sql.join(Array.from({ length: shape.folders }, (_, i) => p(`folder${String(i)}`))),
    ),
  );
}

/** Up to this many ids, `getMany` runs a statement compiled once per count. */
const HOT_MANY = 16;

const manyStatement = (db: Db, count: number) =>
  hotQuery<Selectable<MessagesTable>, Record<string, string>>(db, (p) =>
    db.kysely
      .selectFrom('messages')
      .selectAll()
      .where('inbox_id', '=', p('inboxId'))
      .where(
        'id',
        'in',
        Array.from({ length: count }, (_, i) => p(`id${String(i)}`)),
      ),
  );

/** How many addresses one `sendersOf` statement names (well within either engine's parameter limit). */
const ADDRESSES_PER_STATEMENT = 10_000;

// LIKE's own characters in a domain are taken literally (the escape character is named: SQLite has none by default).
const endsWith = (suffix: string) =>
  sql<boolean>`messages.from_address like ${`%${suffix.replace(/[\\%_]/g, '\\$&')}`} escape '\\'`;

export class KyselyMessageStore implements MessageStore {
  private readonly db: Db['kysely'];
  private readonly full: Db;
  private readonly upsert: ReturnType<typeof upsertStatement>;
  private readonly headlineStatements = new Map<string, ReturnType<typeof headlineStatement>>();
  private readonly manyStatements = new Map<number, ReturnType<typeof manyStatement>>();
  constructor(db: Db) {
    this.db = db.kysely;
    this.full = db;
    this.upsert = upsertStatement(db);
  }

  async upsertMany(messages: readonly MessageSummary[]): Promise<void> {
    for (let i = 0; i < messages.length; i += UPSERT_CHUNK) {
      // better-sqlite3 is synchronous, so a 10,000-message first sync would hold the event loop for its whole
      // write; between chunks, let waiting requests run.
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        await this.upsert(messages.slice(i, i + UPSERT_CHUNK).map(toRow));
      } catch (e) {
        // Refused for a missing inbox or folder: which one the database does not say (SQLite), so it is looked up.
        if (isForeignKeyViolation(e) && !(await this.inboxExists(messages[i]?.inboxId)))
          throw new InboxGoneError();
        throw e;
      }
    }
  }

  private async inboxExists(id: InboxId | undefined): Promise<boolean> {
    if (id === undefined) return false;
    const r = await this.db.selectFrom('inboxes').select('id').where('id', '=', id).executeTakeFirst();
    return r !== undefined;
  }

  async get(inboxId: InboxId, id: MessageId): Promise<MessageSummary | undefined> {
    const r = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r && toSummary(r);
  }

  async getMany(inboxId: InboxId, ids: readonly MessageId[]): Promise<MessageSummary[]> {
    if (ids.length === 0) return [];
    if (ids.length > HOT_MANY) {
      const rows = await this.db
        .selectFrom('messages')
        .selectAll()
        .where('inbox_id', '=', inboxId)
        .where('id', 'in', [...ids])
        .execute();
      return rows.map(toSummary);
    }
    // The messages a call names (one, mostly): a statement compiled once per count, not by Kysely on every call.
    let run = this.manyStatements.get(ids.length);
    if (run === undefined) {
      run = manyStatement(this.full, ids.length);
      this.manyStatements.set(ids.length, run);
    }
    const values: Record<string, string> = { inboxId };
    ids.forEach((m, i) => (values[`id${String(i)}`] = m));
    return (await run(values)).map(toSummary);
  }

  async findByRef(folderId: FolderId, providerRef: string): Promise<MessageSummary | undefined> {
    const r = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('folder_id', '=', folderId)
      .where('provider_ref', '=', providerRef)
      .executeTakeFirst();
    return r && toSummary(r);
  }

  async findByRefs(folderId: FolderId, providerRefs: readonly string[]): Promise<MessageSummary[]> {
    if (providerRefs.length === 0) return [];
    const rows = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('folder_id', '=', folderId)
      .where('provider_ref', 'in', [...providerRefs])
      .execute();
    const byRef = new Map(rows.map((r) => [r.provider_ref, toSummary(r)]));
    return providerRefs.flatMap((ref) => byRef.get(ref) ?? []);
  }

  async findByInternetId(folderId: FolderId, internetMessageId: string): Promise<MessageSummary | undefined> {
    const r = await this.db
      .selectFrom('messages')
      .selectAll()
      .where('folder_id', '=', folderId)
      .where('internet_message_id', '=', internetMessageId)
      .orderBy('position')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return r && toSummary(r);
  }

  async list(inboxId: InboxId, q: MessageQuery): Promise<MessagePage> {
    let base = this.db.selectFrom('messages').where('inbox_id', '=', inboxId);
    if (q.folderId !== undefined) base = base.where('folder_id', '=', q.folderId);
    else if (q.folderIds !== undefined) {
      if (q.folderIds.length === 0) return { items: [], total: 0 };
      base = base.where('folder_id', 'in', [...q.folderIds]);
    }
    if (q.unreadOnly === true) base = base.where('unread', '=', 1);
    if (q.fromAddress !== undefined) base = base.where('from_address', '=', q.fromAddress.toLowerCase());
    if (q.threadId !== undefined) base = base.where('thread_id', '=', q.threadId);
    if (q.text !== undefined && q.text !== '') {
      base = base.where(sql<boolean>`search_text like ${likeContains(q.text)} escape '\\'`);
    }
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('date', 'desc')
        .orderBy('position', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit)
        .offset(q.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toSummary), total: count.n };
  }

  async headlines(inboxId: InboxId, q: HeadlineQuery): Promise<HeadlinePage> {
    if (q.folderIds.length === 0) return { items: [], total: 0 };
    const text = q.text !== undefined && q.text !== '' ? likeContains(q.text) : undefined;
    const shape: HeadlineShape = {
      folders: q.folderIds.length,
      unreadOnly: q.unreadOnly === true,
      text: text !== undefined,
      limit: q.limit,
    };
    const key = `${String(shape.folders)}/${String(shape.unreadOnly)}/${String(shape.text)}/${String(shape.limit)}`;
    let run = this.headlineStatements.get(key);
    if (run === undefined) {
      if (this.headlineStatements.size >= 256) this.headlineStatements.clear();
      run = headlineStatement(this.full, shape);
      this.headlineStatements.set(key, run);
    }
    const values: Record<string, unknown> = { inboxId, offset: q.offset, text };
    q.folderIds.forEach((id, i) => (values[`folder${String(i)}`] = id));
    const rows = await run(values);
    const [first] = rows;
    if (first !== undefined) return { items: rows.map(toHeadline), total: first.total };
    // Past the end, the page has no row to carry the count.
    if (q.offset === 0) return { items: [], total: 0 };
    const { total } = await this.list(inboxId, {
      folderIds: q.folderIds,
      ...(q.unreadOnly === true && { unreadOnly: true }),
      ...(text !== undefined && { text: q.text }),
      limit: 1,
      offset: 0,
    });
    return { items: [], total };
  }

  async updateFlags(inboxId: InboxId, id: MessageId, f: FlagUpdate): Promise<boolean> {
    const r = await this.db
      .updateTable('messages')
      .set({ unread: bit(f.unread), starred: bit(f.starred), labels_json: JSON.stringify(f.labels) })
      .where('inbox_id', '=', inboxId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r.numUpdatedRows === 1n;
  }

  async relocate(
    inboxId: InboxId,
    id: MessageId,
    folderId: FolderId,
    providerRef: string,
    position: number,
  ): Promise<boolean> {
    const move = (db: Db['kysely']) =>
      db
        .updateTable('messages')
        .set({ folder_id: folderId, provider_ref: providerRef, position })
        .where('inbox_id', '=', inboxId)
        .where('id', '=', id)
        .executeTakeFirst();
    try {
      return (await move(this.db)).numUpdatedRows === 1n;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    // The folder already has a row under that ref: the same message, indexed there by a sync after another client
    // moved it there, and not yet removed from where this row says it is (Gmail's and Graph's refs are the same in
    // every folder). The mailbox holds it once, where it now is: that stale row gives way to this one, whose id the
    // caller holds (docs/decisions/0044).
    return this.db.transaction().execute(async (tx) => {
      await tx
        .deleteFrom('messages')
        .where('folder_id', '=', folderId)
        .where('provider_ref', '=', providerRef)
        .where('id', '!=', id)
        .execute();
      return (await move(tx)).numUpdatedRows === 1n;
    });
  }

  async removeByRefs(folderId: FolderId, refs: readonly string[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < refs.length; i += UPSERT_CHUNK) {
      const r = await this.db
        .deleteFrom('messages')
        .where('folder_id', '=', folderId)
        .where('provider_ref', 'in', refs.slice(i, i + UPSERT_CHUNK))
        .executeTakeFirst();
      n += Number(r.numDeletedRows);
    }
    return n;
  }

  async updateFlagsByRefs(
    folderId: FolderId,
    states: readonly { ref: string; unread: boolean; starred: boolean; labels: readonly string[] }[],
  ): Promise<void> {
    if (states.length === 0) return;
    // One UPDATE per distinct flag state (most changes share a few), not one per message. A ref listed twice
    // keeps its last state, as applying them in order would.
    const lastByRef = new Map<string, FlagColumns>();
    for (const s of states) {
      lastByRef.set(s.ref, {
        unread: bit(s.unread),
        starred: bit(s.starred),
        labels_json: JSON.stringify(s.labels),
      });
    }
    const groups = new Map<string, { set: FlagColumns; refs: string[] }>();
    for (const [ref, set] of lastByRef) {
      // unread and starred are single digits, so the key is unambiguous.
      const key = `${String(set.unread)}${String(set.starred)}${set.labels_json}`;
      const g = groups.get(key);
      if (g === undefined) groups.set(key, { set, refs: [ref] });
      else g.refs.push(ref);
    }
    await this.db.transaction().execute(async (tx) => {
      for (const { set, refs } of groups.values()) {
        for (let i = 0; i < refs.length; i += UPSERT_CHUNK) {
          await tx
            .updateTable('messages')
            .set(set)
            .where('folder_id', '=', folderId)
            .where('provider_ref', 'in', refs.slice(i, i + UPSERT_CHUNK))
            .execute();
        }
      }
    });
  }

  async keepsMailFrom(
    inboxIds: readonly InboxId[],
    from: { readonly address: string } | { readonly domain: string },
    except: MessageId,
  ): Promise<boolean> {
    if (inboxIds.length === 0) return false;
    const found = await this.db
      .selectFrom('messages')
      .innerJoin('folders', 'folders.id', 'messages.folder_id')
      .select('messages.id')
      .where('messages.inbox_id', 'in', [...inboxIds])
      .where('messages.id', '!=', except)
      .where((eb) =>
        eb.or([
          eb('folders.canonical', 'is', null),
          eb('folders.canonical', 'not in', ['screened', 'spam', 'trash']),
        ]),
      )
      .where((eb) => {
        if ('address' in from) return eb('messages.from_address', '=', from.address.toLowerCase());
        const domain = from.domain.toLowerCase();
        return eb.or([endsWith(`@${domain}`), endsWith(`.${domain}`)]);
      })
      .limit(1)
      .executeTakeFirst();
    return found !== undefined;
  }

  async sendersOf(
    inboxIds: readonly InboxId[],
    senders: { readonly addresses: readonly string[]; readonly domains: readonly string[] },
  ): Promise<{ name: string; address: string }[]> {
    const addresses = [...new Set(senders.addresses.flatMap((a) => [a.toLowerCase(), addressKey(a)]))];
    const domains = [...new Set(senders.domains.map(domainKey))];
    if (inboxIds.length === 0 || addresses.length + domains.length === 0) return [];
    // Several inboxes' known-good lists (5,000 each, in two spellings) can pass the parameters one statement takes
    // (SQLite 32,766, PostgreSQL 65,535): the addresses go in parts, the domains with the first.
    const parts = Array.from(
      { length: Math.max(Math.ceil(addresses.length / ADDRESSES_PER_STATEMENT), 1) },
      (_, n) => addresses.slice(n * ADDRESSES_PER_STATEMENT, (n + 1) * ADDRESSES_PER_STATEMENT),
    );
    const found = new Map<string, { name: string; address: string }>();
    for (const [n, part] of parts.entries()) {
      const suffixes = n === 0 ? domains : [];
      const rows = await this.db
        .selectFrom('messages')
        .select(['from_name', 'from_address'])
        .distinct()
        .where('inbox_id', 'in', [...inboxIds])
        .where('from_name', '!=', '')
        .where((eb) =>
          eb.or([
            ...(part.length === 0 ? [] : [eb('from_address', 'in', part)]),
            ...suffixes.flatMap((d) => [endsWith(`@${d}`), endsWith(`.${d}`)]),
          ]),
        )
        .limit(SENDERS_OF_MAX - found.size)
        .execute();
      for (const r of rows)
        found.set(`${r.from_name}\u0000${r.from_address}`, { name: r.from_name, address: r.from_address });
      if (found.size >= SENDERS_OF_MAX) break;
    }
    return [...found.values()];
  }

  async labelsInUse(inboxId: InboxId): Promise<string[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select('labels_json')
      .distinct()
      .where('inbox_id', '=', inboxId)
      .where('labels_json', '!=', '[]')
      .execute();
    const all = new Set<string>();
    for (const r of rows) for (const l of JSON.parse(r.labels_json) as string[]) all.add(l);
    return [...all].sort();
  }

  async listRefs(folderId: FolderId): Promise<KnownRef[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select(['provider_ref', 'internet_message_id'])
      .where('folder_id', '=', folderId)
      .execute();
    return rows.map((r) => ({ ref: r.provider_ref, internetMessageId: r.internet_message_id }));
  }
}
