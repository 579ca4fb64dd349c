import { createHash } from 'node:crypto';
import {
  FolderGoneError,
  MAX_RAW_BYTES,
  MailProviderError,
  PartialChangeError,
  type ChangeOptions,
  type MailSession,
  type Placed,
} from '../../../core/mail/mail-ports.ts';
import type {
  AttachmentContent,
  FlagState,
  FolderChanges,
  FullMessage,
  RemoteFolder,
  RemoteSummary,
  SearchHit,
  SyncCursor,
} from '../../../core/mail/mail-types.ts';
import type { CanonicalFolder } from '../../../core/messages/folder.ts';
import { messageIds } from '../mime/header-fields.ts';
import { fullMessage, parseMessage, WHOLE_MESSAGE_MAX_BYTES } from '../mime/parse-message.ts';
import { GraphStatusError, type GraphApi } from './graph-api.ts';
import { FreshWindow, mapPresent, startPolling, stillInFolder } from '../provider-api.ts';
import {
  FLAGS_SELECT,
  flagStateOf,
  positionOf,
  SIZE_EXPAND,
  SUMMARY_SELECT,
  summaryOf,
  type GraphMessage,
} from './graph-message.ts';

/** Well-known folder names (Graph resolves them to ids) and their roles. */
const WELL_KNOWN: [string, CanonicalFolder][] = [
  ['inbox', 'inbox'],
  ['sentitems', 'sent'],
  ['drafts', 'drafts'],
  ['archive', 'archive'],
  ['junkemail', 'spam'],
  ['deleteditems', 'trash'],
];

const PAGE = 100;
/** Delta pages past this are a re-read of the window instead: a bounded catch-up. */
const MAX_DELTA_PAGES = 50;
const PARALLEL = 4;
/** Ids a page of a folder's message list names at most, when only the ids are asked for. */
const ID_PAGE = 1000;

interface Page<T> {
  readonly value?: readonly T[];
  readonly '@odata.nextLink'?: string;
  readonly '@odata.deltaLink'?: string;
}

interface GraphFolder {
  readonly id: string;
  readonly displayName: string;
  readonly childFolderCount?: number;
}

/**
 * How far down folders inside folders are read, and how many folders at most: a bound on the requests one listing
 * makes (one per folder that has any inside it), far past what a person files by hand.
 */
const FOLDER_DEPTH = 10;
const MAX_FOLDERS = 5000;

export interface GraphSessionOptions {
  readonly api: GraphApi;
  readonly pollMs: number;
  /**
   * The mailbox's well-known folders found so far (`inbox` → its id), kept by the connector across sessions: a
   * folder's id never changes, and looking them up cost every sync and draft six requests (decision 0127).
   */
  readonly wellKnown: Map<string, string>;
}

/**
 * One Microsoft 365 / Outlook.com mailbox behind the mail ports (decision 0022). Folders are mail folders by id;
 * a ref is the message's immutable id, its position the received time. A folder's cursor holds the folder's delta
 * link: the first sync takes a fresh link (`$deltatoken=latest`) and reads the newest `windowSize` messages,
 * later syncs follow the link; 410 `SyncStateNotFound` re-reads the window as a reset. Star is the follow-up
 * flag, labels are categories, trash and spam are moves to Deleted Items and Junk Email.
 */
export class GraphSession implements MailSession {
  private readonly api: GraphApi;
  private readonly pollMs: number;
  private readonly wellKnown: Map<string, string>;
  private folderList: Promise<RemoteFolder[]> | undefined;
  private readonly watchers = new Set<() => Promise<void>>();

  constructor(opts: GraphSessionOptions) {
    this.api = opts.api;
    this.pollMs = opts.pollMs;
    this.wellKnown = opts.wellKnown;
  }

  listFolders(): Promise<RemoteFolder[]> {
    this.folderList ??= this.readFolders().catch((e: unknown) => {
      this.folderList = undefined;
      throw e;
    });
    return this.folderList;
  }

  private async readFolders(): Promise<RemoteFolder[]> {
    // The well-known folders not found before are looked up beside the listing (the API's limiter lets four requests
    // run at once); one the mailbox lacks (no Archive yet) is asked for again next time.
    const lookUp = (names: readonly string[]) =>
      Promise.all(
        names.map(async (name) => {
          const f = await this.api.find<GraphFolder>(
            'a folder',
            `/mailFolders/${name}?$select=id,displayName`,
          );
          if (f !== undefined) this.wellKnown.set(name, f.id);
          else this.wellKnown.delete(name);
        }),
      );
    const unknown = WELL_KNOWN.map(([name]) => name).filter((name) => !this.wellKnown.has(name));
    // `/mailFolders` is the top of the mailbox only; a folder inside another (Inbox/Clients, as Outlook makes them)
    // is read from its parent's childFolders and named with its parents, so two "2024" folders stay apart.
    const folders: { id: string; name: string; children: boolean; depth: number }[] = [];
    const select = `$top=${String(PAGE)}&$select=id,displayName,childFolderCount`;
    const read = async (first: string, prefix: string, depth: number) => {
      for (let next: string | undefined = first; next !== undefined && folders.length < MAX_FOLDERS;) {
        const page: Page<GraphFolder> = await this.api.json('the folders', 'GET', next);
        for (const f of page.value ?? [])
          folders.push({
            id: f.id,
            name: `${prefix}${f.displayName}`,
            children: (f.childFolderCount ?? 0) > 0,
            depth,
          });
        next = page['@odata.nextLink'];
      }
    };
    await Promise.all([lookUp(unknown), read(`/mailFolders?${select}`, '', 1)]);
    // Breadth first: a folder's children are appended behind it, and read in their turn.
    for (const p of folders)
      if (p.children && p.depth < FOLDER_DEPTH)
        await read(
          `/mailFolders/${encodeURIComponent(p.id)}/childFolders?${select}`,
          `${p.name}/`,
          p.depth + 1,
        );
    // A remembered id the listing lacks (another mailbox signed in to this inbox) is looked up again, now.
    const listed = new Set(folders.map((f) => f.id));
    await lookUp(
      WELL_KNOWN.map(([name]) => name).filter((name) => {
        const id = this.wellKnown.get(name);
        return id !== undefined && !listed.has(id) && !unknown.includes(name);
      }),
    );
    const roles = new Map<string, CanonicalFolder>();
    for (const [name, role] of WELL_KNOWN) {
      const id = this.wellKnown.get(name);
      if (id !== undefined) roles.set(id, role);
    }
    let screened = false;
    return folders.map((f) => {
      const role = roles.get(f.id);
      const isScreened = role === undefined && !screened && f.name.toLowerCase() === 'screened';
      if (isScreened) screened = true;
      return { path: f.id, name: f.name, canonical: role ?? (isScreened ? 'screened' : null) };
    });
  }

  async changes(path: string, cursor: SyncCursor | null, opts: ChangeOptions): Promise<FolderChanges> {
    if (cursor?.highestModseq != null) {
      const delta = await this.readDelta(cursor.highestModseq);
      if (delta !== 'stale') return this.applyDelta(path, cursor, delta, opts);
    }
    return this.freshWindow(path, opts, cursor);
  }

  async flagsOf(path: string, refs: readonly string[]): Promise<FlagState[]> {
    return (await this.messages(refs, FLAGS_SELECT))
      .filter((m) => m.parentFolderId === path)
      .map(flagStateOf);
  }

  async watch(path: string, onChange: () => void): Promise<() => Promise<void>> {
    let link = await this.latestLink(path);
    const stopPolling = startPolling(
      this.pollMs,
      async (stopped) => {
        const delta = await this.readDelta(link);
        if (stopped()) return;
        if (delta === 'stale') {
          link = await this.latestLink(path);
          onChange();
          return;
        }
        link = delta.link;
        if (delta.items.length > 0) onChange();
      },
      onChange,
    );
    const stop = async () => {
      this.watchers.delete(stop);
      await stopPolling();
    };
    this.watchers.add(stop);
    return stop;
  }

  async fetchOlder(path: string, below: number, count: number): Promise<RemoteSummary[]> {
    const before = new Date(Math.floor(below / 1000) + 1).toISOString();
    const out: RemoteSummary[] = [];
    let next: string | undefined = this.listPath(path, count * 2, `receivedDateTime lt ${before}`);
    while (next !== undefined && out.length < count) {
      const page: Page<GraphMessage> = await this.api.json('older messages', 'GET', next);
      for (const m of page.value ?? []) if (positionOf(m) < below) out.push(summaryOf(m));
      next = page['@odata.nextLink'];
    }
    return out.sort((a, b) => b.position - a.position).slice(0, count);
  }

  async fetchMessage(path: string, ref: string): Promise<FullMessage | undefined> {
    const m = await this.message(ref, SUMMARY_SELECT, true);
    if (m?.parentFolderId !== path) return undefined;
    // The text comes first in the MIME Microsoft writes, the attachments after it (they are listed by Graph below,
    // and downloaded by get_attachment's link): at most WHOLE_MESSAGE_MAX_BYTES is read, as from an IMAP server.
    const raw = await this.api.bytes(
      'the message',
      `/messages/${encodeURIComponent(ref)}/$value`,
      WHOLE_MESSAGE_MAX_BYTES,
    );
    if (raw === undefined) return undefined;
    const parsed = await parseMessage(raw.bytes);
    const attachments = await this.api.json<Page<GraphAttachment>>(
      'the attachments',
      'GET',
      `/messages/${encodeURIComponent(ref)}/attachments?$select=id,name,contentType,size,isInline`,
    );
    const summary = summaryOf(m);
    return fullMessage(
      { ...summary, size: raw.complete ? raw.bytes.length : Math.max(summary.size, raw.bytes.length) },
      parsed,
      (attachments.value ?? []).map((a) => ({
        partId: a.id,
        filename: a.name ?? '',
        contentType: (a.contentType ?? 'application/octet-stream').toLowerCase(),
        size: a.size ?? 0,
        inline: a.isInline === true,
      })),
    );
  }

  async fetchRaw(path: string, ref: string): Promise<Uint8Array | undefined> {
    const m = await this.message(ref, FLAGS_SELECT);
    if (m?.parentFolderId !== path) return undefined;
    const raw = await this.api.bytes(
      'the message',
      `/messages/${encodeURIComponent(ref)}/$value`,
      MAX_RAW_BYTES,
    );
    return raw?.complete === true ? raw.bytes : undefined;
  }

  async search(query: string, paths: readonly string[], limit: number): Promise<SearchHit[]> {
    // KQL in $search: a quoted phrase; our own quotes and backslashes would end it early.
    const phrase = query.replace(/["\\]/g, ' ').trim();
    const hits = new Map<string, SearchHit>();
    for (const path of paths) {
      const page = await this.api.json<Page<GraphMessage>>(
        'the search',
        'GET',
        `/mailFolders/${encodeURIComponent(path)}/messages?$search=${encodeURIComponent(`"${phrase}"`)}&$top=${String(limit)}&$select=${SUMMARY_SELECT}&$expand=${encodeURIComponent(SIZE_EXPAND)}`,
      );
      for (const m of page.value ?? []) if (!hits.has(m.id)) hits.set(m.id, { path, summary: summaryOf(m) });
    }
    return [...hits.values()].sort((a, b) => b.summary.position - a.summary.position).slice(0, limit);
  }

  async openAttachment(path: string, ref: string, partId: string): Promise<AttachmentContent | undefined> {
    const m = await this.message(ref, FLAGS_SELECT);
    if (m?.parentFolderId !== path || !validRef(partId)) return undefined;
    const a = await this.api.find<GraphAttachment & { contentBytes?: string }>(
      'the attachment',
      `/messages/${encodeURIComponent(ref)}/attachments/${encodeURIComponent(partId)}`,
    );
    if (a?.contentBytes === undefined) return undefined;
    const bytes = new Uint8Array(Buffer.from(a.contentBytes, 'base64'));
    return {
      filename: a.name ?? `attachment-${partId.slice(0, 8)}`,
      contentType: (a.contentType ?? 'application/octet-stream').toLowerCase(),
      size: bytes.length,
      content: (async function* () {
        await Promise.resolve();
        yield bytes;
      })(),
    };
  }

  async move(path: string, refs: readonly string[], toPath: string): Promise<Map<string, Placed>> {
    const placed = new Map<string, Placed>();
    // A refused move (404 for the message, or for a folder the person deleted) looks the destination up, once.
    let destinationThere = false;
    const refused = async (e: unknown): Promise<never> => {
      if (!destinationThere && e instanceof GraphStatusError && (e.status === 404 || e.status === 400)) {
        const folder = await this.api.find('the folder', `/mailFolders/${encodeURIComponent(toPath)}`);
        if (folder === undefined)
          throw new FolderGoneError(
            'Could not move the messages: the folder they were to go to is no longer in the mailbox.',
          );
        destinationThere = true;
      }
      throw e;
    };
    for (const m of await this.messages(refs, FLAGS_SELECT)) {
      if (m.parentFolderId !== path) continue;
      const moved = await this.eachOf(placed.size, { placed }, () =>
        this.api
          .json<GraphMessage>(
            'the move',
            'POST',
            `/messages/${encodeURIComponent(m.id)}/move`,
            { destinationId: toPath },
            { repeat: 'idempotent' },
          )
          .catch(refused),
      );
      if (moved !== undefined) placed.set(m.id, { ref: moved.value.id, position: positionOf(moved.value) });
    }
    return placed;
  }

  async setFlags(
    path: string,
    refs: readonly string[],
    add: readonly string[],
    remove: readonly string[],
  ): Promise<ReadonlySet<string>> {
    const addCats = add.filter((f) => !f.startsWith('\\'));
    const removeCats = new Set(remove.filter((f) => !f.startsWith('\\')));
    const flagged = new Set<string>();
    /** Those found that needed no change. */
    const asAsked = new Set<string>();
    for (const m of await this.messages(refs, FLAGS_SELECT)) {
      if (m.parentFolderId !== path) continue;
      const patch: Record<string, unknown> = {};
      if (add.includes('\\Seen')) patch['isRead'] = true;
      if (remove.includes('\\Seen')) patch['isRead'] = false;
      if (add.includes('\\Flagged')) patch['flag'] = { flagStatus: 'flagged' };
      if (remove.includes('\\Flagged')) patch['flag'] = { flagStatus: 'notFlagged' };
      if (addCats.length > 0 || removeCats.size > 0) {
        const next = new Set([...(m.categories ?? []), ...addCats]);
        for (const c of removeCats) next.delete(c);
        patch['categories'] = [...next];
      }
      if (Object.keys(patch).length === 0) {
        asAsked.add(m.id);
        continue;
      }
      const done = await this.eachOf(flagged.size, { flagged }, () =>
        this.api.json('the change', 'PATCH', `/messages/${encodeURIComponent(m.id)}`, patch),
      );
      if (done !== undefined) flagged.add(m.id);
    }
    return new Set([...flagged, ...asAsked]);
  }

  /**
   * One message's request of a change made message by message: undefined when the message has gone meanwhile (404:
   * another client deleted or moved it, as an IMAP server ignores an expunged UID), and a failure after `doneSoFar`
   * messages were changed is a PartialChangeError naming them, so the caller records what was done.
   */
  private async eachOf<T>(
    doneSoFar: number,
    done: ConstructorParameters<typeof PartialChangeError>[1],
    request: () => Promise<T>,
  ): Promise<{ value: T } | undefined> {
    try {
      return { value: await request() };
    } catch (e) {
      if (e instanceof GraphStatusError && e.status === 404) return undefined;
      if (doneSoFar > 0 && e instanceof MailProviderError && !(e instanceof PartialChangeError))
        throw new PartialChangeError(e.message, done);
      throw e;
    }
  }

  async append(
    path: string,
    raw: Uint8Array,
    flags: readonly string[],
    date: Date,
  ): Promise<Placed | undefined> {
    const drafts = (await this.listFolders()).find((f) => f.canonical === 'drafts')?.path;
    const draft = await this.writeDraft(raw, undefined);
    let m: GraphMessage = draft;
    if (path !== drafts)
      m = await this.api.json<GraphMessage>(
        'the move',
        'POST',
        `/messages/${encodeURIComponent(draft.id)}/move`,
        {
          destinationId: path,
        },
      );
    if (!flags.includes('\\Seen') && m.isRead === true)
      await this.api.json('the change', 'PATCH', `/messages/${encodeURIComponent(m.id)}`, { isRead: false });
    return { ref: m.id, position: m.receivedDateTime === undefined ? date.getTime() * 1000 : positionOf(m) };
  }

  /**
   * Writes `raw` as a draft. A reply to a message in this mailbox is made with `createReply` (Graph threads it
   * into the conversation) and then given the composed subject, recipients and text; anything else is created
   * from the MIME itself. An existing draft `draftId` is updated the same way.
   */
  async writeDraft(raw: Uint8Array, draftId: string | undefined): Promise<GraphMessage> {
    const parsed = await parseMessage(raw);
    const fields = {
      subject: parsed.subject,
      body: { contentType: 'text', content: parsed.text },
      toRecipients: parsed.to.map((a) => ({ emailAddress: a })),
      ccRecipients: parsed.cc.map((a) => ({ emailAddress: a })),
    };
    if (draftId !== undefined)
      return this.api.json<GraphMessage>(
        'the draft',
        'PATCH',
        `/messages/${encodeURIComponent(draftId)}`,
        fields,
      );
    const parent = await this.byInternetId(parsed.inReplyTo);
    if (parent !== undefined) {
      const reply = await this.api.json<GraphMessage>(
        'the reply',
        'POST',
        `/messages/${encodeURIComponent(parent)}/createReply`,
        {},
      );
      return this.api.json<GraphMessage>(
        'the draft',
        'PATCH',
        `/messages/${encodeURIComponent(reply.id)}`,
        fields,
      );
    }
    const res = await this.api.send('the draft', 'POST', '/messages', {
      body: Buffer.from(raw).toString('base64'),
      contentType: 'text/plain',
    });
    return (await res.json()) as GraphMessage;
  }

  /** Sends a draft: Graph answers 202 and files it in Sent Items. One request, never repeated on its own. */
  async sendDraft(draftId: string): Promise<void> {
    await this.api.send('sending the draft', 'POST', `/messages/${encodeURIComponent(draftId)}/send`, {
      repeat: 'once',
    });
  }

  async isDraft(ref: string): Promise<boolean> {
    return (
      (
        await this.api.find<GraphMessage>(
          'the draft',
          `/messages/${encodeURIComponent(ref)}?$select=id,isDraft`,
        )
      )?.isDraft === true
    );
  }

  async deleteOwnDraft(_path: string, ref: string): Promise<void> {
    try {
      await this.api.json(
        'the draft',
        'POST',
        `/messages/${encodeURIComponent(ref)}/permanentDelete`,
        undefined,
        {
          repeat: 'idempotent',
        },
      );
    } catch (e) {
      if (!(e instanceof GraphStatusError && e.status === 404)) throw e;
    }
  }

  ownName(): Promise<string | undefined> {
    // Graph's `/me` displayName: learned once, at the sign-in (InboxService.completeSignIn).
    return Promise.resolve(undefined);
  }

  async listLabels(): Promise<string[]> {
    const page = await this.api.json<Page<{ displayName?: string }>>(
      'the categories',
      'GET',
      '/outlook/masterCategories',
    );
    return (page.value ?? []).map((c) => c.displayName ?? '').filter((n) => n !== '');
  }

  makeLabels(): Promise<string[]> {
    // Categories set on a message need no master category (setFlags).
    return Promise.resolve([]);
  }

  removeLabelIfUnused(): Promise<boolean> {
    // A category set on a message makes no master category (setFlags), so an undo has none to take away; one the
    // person keeps in the master list is theirs, used or not.
    return Promise.resolve(false);
  }

  async createFolder(name: string): Promise<void> {
    try {
      await this.api.json('the folder', 'POST', '/mailFolders', { displayName: name });
    } catch (e) {
      if (!(e instanceof GraphStatusError && e.status === 409)) throw e;
    }
    this.folderList = undefined;
  }

  async close(): Promise<void> {
    await Promise.all([...this.watchers].map((stop) => stop()));
  }

  // — internals —

  private listPath(path: string, top: number, filter?: string): string {
    return (
      `/mailFolders/${encodeURIComponent(path)}/messages?$top=${String(Math.min(1000, top))}` +
      `&$orderby=${encodeURIComponent('receivedDateTime desc')}&$select=${SUMMARY_SELECT}` +
      `&$expand=${encodeURIComponent(SIZE_EXPAND)}` +
      (filter === undefined ? '' : `&$filter=${encodeURIComponent(filter)}`)
    );
  }

  private async latestLink(path: string): Promise<string> {
    const page = await this.api.json<Page<GraphMessage>>(
      'the folder changes',
      'GET',
      `/mailFolders/${encodeURIComponent(path)}/messages/delta?$deltatoken=latest&$select=${FLAGS_SELECT}`,
    );
    const link = page['@odata.deltaLink'];
    if (link === undefined) throw new MailProviderError('Microsoft Graph gave no delta link');
    return link;
  }

  /**
   * The newest `windowSize` messages of the folder with a new delta link: a reset on a first sync. After the
   * cursor's delta expired (410), Graph's ids still name the same messages, so it is not a reset: the window comes
   * as `added` (the index keeps its rows and their ids), and known messages no longer in the folder are `removed`
   * (decision 0045).
   */
  private async freshWindow(
    path: string,
    opts: ChangeOptions,
    expired: SyncCursor | null = null,
  ): Promise<FolderChanges> {
    const link = await this.latestLink(path);
    const window = new FreshWindow(opts, expired === null);
    let next: string | undefined = this.listPath(path, Math.min(opts.windowSize, 500));
    let seen = 0;
    while (next !== undefined && seen < opts.windowSize) {
      const page: Page<GraphMessage> = await this.api.json('the messages', 'GET', next);
      const batch = (page.value ?? []).slice(0, opts.windowSize - seen).map(summaryOf);
      seen += batch.length;
      await window.take(batch);
      next = page['@odata.nextLink'];
    }
    const { windowLow, uidNext, removed } = await window.end((refs) => this.stillIn(path, refs));
    return {
      cursor: {
        uidValidity:
          expired?.uidValidity ??
          `graph:${createHash('sha256').update(link).digest('base64url').slice(0, 16)}`,
        uidNext,
        highestModseq: link,
        windowLow,
      },
      reset: window.reset,
      added: window.added,
      flags: [],
      removed,
    };
  }

  /** Which of these known refs are still in the folder, after an expired delta (`stillInFolder`). */
  private stillIn(path: string, refs: readonly string[]): Promise<string[]> {
    const folder = `/mailFolders/${encodeURIComponent(path)}`;
    return stillInFolder(refs, {
      pageSize: ID_PAGE,
      size: async () =>
        (await this.api.find<{ totalItemCount?: number }>('the folder', `${folder}?$select=totalItemCount`))
          ?.totalItemCount,
      listIds: async () => {
        const listed = new Set<string>();
        let next: string | undefined = `${folder}/messages?$select=id&$top=${String(ID_PAGE)}`;
        while (next !== undefined) {
          const page: Page<{ id: string }> = await this.api.json('the messages', 'GET', next);
          for (const m of page.value ?? []) listed.add(m.id);
          next = page['@odata.nextLink'];
        }
        return listed;
      },
      read: async (unsure) =>
        (await this.messages(unsure, FLAGS_SELECT)).filter((m) => m.parentFolderId === path).map((m) => m.id),
    });
  }

  private async readDelta(link: string): Promise<{ items: GraphMessage[]; link: string } | 'stale'> {
    const items = new Map<string, GraphMessage>();
    let next: string | undefined = link;
    for (let page = 0; next !== undefined; page++) {
      if (page >= MAX_DELTA_PAGES) return 'stale';
      let res: Page<GraphMessage>;
      try {
        res = await this.api.json('the folder changes', 'GET', next, undefined, {
          prefer: 'odata.maxpagesize=100',
        });
      } catch (e) {
        if (e instanceof GraphStatusError && (e.status === 410 || e.code === 'SyncStateNotFound'))
          return 'stale';
        throw e;
      }
      for (const m of res.value ?? []) items.set(m.id, m);
      if (res['@odata.deltaLink'] !== undefined)
        return { items: [...items.values()], link: res['@odata.deltaLink'] };
      next = res['@odata.nextLink'];
    }
    throw new MailProviderError('Microsoft Graph ended the changes without a delta link');
  }

  private async applyDelta(
    path: string,
    cursor: SyncCursor,
    delta: { items: GraphMessage[]; link: string },
    opts: ChangeOptions,
  ): Promise<FolderChanges> {
    const known = new Set(opts.knownRefs);
    const flags: FlagState[] = [];
    const removed: string[] = [];
    const fresh: string[] = [];
    for (const m of delta.items) {
      if (m['@removed'] !== undefined) {
        if (known.has(m.id)) removed.push(m.id);
      } else if (known.has(m.id)) flags.push(flagStateOf(m));
      else fresh.push(m.id);
    }
    // Delta items lack the headers a summary needs: new messages are read whole, once each.
    const added = (await this.messages(fresh, SUMMARY_SELECT, true))
      .filter((m) => m.parentFolderId === path)
      .map(summaryOf);
    const uidNext = added.reduce((n, m) => Math.max(n, m.position + 1), cursor.uidNext);
    const changes = {
      cursor: { ...cursor, highestModseq: delta.link, uidNext },
      reset: false,
      added,
      flags,
      removed,
    };
    if (opts.onAdded === undefined) return changes;
    if (added.length > 0) await opts.onAdded(added, false);
    return { ...changes, added: [] };
  }

  private message(ref: string, select: string, size = false): Promise<GraphMessage | undefined> {
    if (!validRef(ref)) return Promise.resolve(undefined);
    const expand = size ? `&$expand=${encodeURIComponent(SIZE_EXPAND)}` : '';
    return this.api.find<GraphMessage>(
      'the message',
      `/messages/${encodeURIComponent(ref)}?$select=${select}${expand}`,
    );
  }

  /** Several messages, PARALLEL at a time, in order; the ones that are gone left out. */
  private messages(refs: readonly string[], select: string, size = false): Promise<GraphMessage[]> {
    const expand = size ? `&$expand=${encodeURIComponent(SIZE_EXPAND)}` : '';
    return mapPresent(refs.filter(validRef), PARALLEL, (ref) =>
      this.api.find<GraphMessage>(
        'the message',
        `/messages/${encodeURIComponent(ref)}?$select=${select}${expand}`,
      ),
    );
  }

  async locate(path: string, internetMessageId: string): Promise<Placed | undefined> {
    const id = messageIds(internetMessageId)[0];
    if (id === undefined) return undefined;
    const page = await this.api.json<Page<GraphMessage>>(
      'the message',
      'GET',
      `/mailFolders/${encodeURIComponent(path)}/messages?$filter=${encodeURIComponent(`internetMessageId eq '${id.replace(/'/g, "''")}'`)}&$select=id,receivedDateTime&$top=1`,
    );
    const m = page.value?.[0];
    return m === undefined ? undefined : { ref: m.id, position: positionOf(m) };
  }

  private async byInternetId(internetMessageId: string | null): Promise<string | undefined> {
    const id = messageIds(internetMessageId)[0];
    if (id === undefined) return undefined;
    const page = await this.api.json<Page<GraphMessage>>(
      'the thread',
      'GET',
      `/messages?$filter=${encodeURIComponent(`internetMessageId eq '${id.replace(/'/g, "''")}'`)}&$select=id&$top=1`,
    );
    return page.value?.[0]?.id;
  }
}

interface GraphAttachment {
  readonly id: string;
  readonly name?: string;
  readonly contentType?: string;
  readonly size?: number;
  readonly isInline?: boolean;
}

/** Graph ids are base64-like; anything else is not ours to put in a URL. */
function validRef(ref: string): boolean {
  return /^[\w=+/-]{1,400}$/.test(ref);
}
