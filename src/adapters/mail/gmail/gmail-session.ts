import type { gmail_v1 } from '@googleapis/gmail';
import {
  MAX_RAW_BYTES,
  FolderGoneError,
  MailProviderError,
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
import { messageIds } from '../mime/header-fields.ts';
import { GmailStatusError, type GmailApi } from './gmail-api.ts';
import { FreshWindow, mapPresent, startPolling, stillInFolder } from '../provider-api.ts';
import { ARCHIVE, GmailFolders, includesSpamTrash, listSelector, moveLabels } from './gmail-folders.ts';
import {
  contentOf,
  filenameOf,
  flagStateOf,
  partById,
  positionOf,
  SUMMARY_HEADERS,
  summaryOf,
} from './gmail-message.ts';

/** Requests in flight from one session (Gmail's per-user limit is shared; the API layer caps it too). */
const PARALLEL = 6;
/** batchModify takes at most 1,000 ids a call. */
const BATCH_IDS = 1000;
/** History past this many records is re-read as a fresh window instead: a bounded catch-up. */
const MAX_HISTORY_PAGES = 20;
/** Summaries handed to `onAdded` at a time. */
const HAND_OVER = 200;
/** Ids a messages.list page names, for the quota of one messages.get (5 units each). */
const LIST_PAGE = 500;

type Message = gmail_v1.Schema$Message;

export interface GmailSessionOptions {
  readonly api: GmailApi;
  /** How often `watch` asks whether anything changed. */
  readonly pollMs: number;
}

/**
 * One Gmail mailbox behind the mail ports (decision 0021). Folders are labels (see gmail-folders.ts); a message's
 * ref is its Gmail id, the same in every label, and its position its internal date. A folder's cursor holds the
 * mailbox history id: the first sync reads the newest `windowSize` messages of the label, later syncs read
 * `history.list` from the stored id and re-check only the messages it names; an expired history (404) re-reads
 * the window as a reset. Trash and spam are label changes, never `messages.delete`.
 */
export class GmailSession implements MailSession {
  private readonly api: GmailApi;
  private readonly pollMs: number;
  private labels: Promise<GmailFolders> | undefined;
  /** history.list results of this session by start id: several folders synced in one run read it once. */
  private readonly histories = new Map<string, Promise<History | 'stale'>>();
  private readonly watchers = new Set<() => Promise<void>>();

  constructor(opts: GmailSessionOptions) {
    this.api = opts.api;
    this.pollMs = opts.pollMs;
  }

  async listFolders(): Promise<RemoteFolder[]> {
    return (await this.folders()).folders();
  }

  async changes(path: string, cursor: SyncCursor | null, opts: ChangeOptions): Promise<FolderChanges> {
    if (cursor !== null && cursor.highestModseq !== null) {
      const history = await this.history(cursor.highestModseq);
      if (history !== 'stale') return this.applyHistory(path, cursor, history, opts);
    }
    return this.freshWindow(path, opts, cursor);
  }

  async flagsOf(path: string, refs: readonly string[]): Promise<FlagState[]> {
    const found = await this.minimal(refs);
    const folders = await this.foldersKnowing(found);
    return found
      .filter((m) => folders.holds(path, m.labelIds))
      .map((m) => flagStateOf(m.id ?? '', m.labelIds, folders));
  }

  async watch(path: string, onChange: () => void): Promise<() => Promise<void>> {
    let last = (await this.profile()).historyId ?? '0';
    const stopPolling = startPolling(
      this.pollMs,
      async (stopped) => {
        const res = await this.api.find('the mailbox history', (g, o) =>
          g.users.history.list(
            {
              userId: 'me',
              startHistoryId: last,
              maxResults: 1,
              ...(path === ARCHIVE ? {} : { labelId: path }),
            },
            o,
          ),
        );
        if (stopped()) return;
        if (res === undefined) {
          // Expired: a sync will reset; start over from now.
          last = (await this.profile()).historyId ?? last;
          onChange();
          return;
        }
        if ((res.history ?? []).length > 0) onChange();
        last = res.historyId ?? last;
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
    // Gmail's `before:` takes seconds; positions are milliseconds × 1,000, so round up and filter exactly after.
    const beforeSeconds = Math.floor(below / 1_000_000) + 1;
    const selector = listSelector(path);
    const q = [selector.q, `before:${String(beforeSeconds)}`].filter((x) => x !== undefined).join(' ');
    const out: RemoteSummary[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.api.call('the message list', (g, o) =>
        g.users.messages.list(
          {
            userId: 'me',
            ...(selector.labelIds !== undefined && { labelIds: selector.labelIds }),
            q,
            maxResults: Math.min(500, Math.max(count * 2, 50)),
            includeSpamTrash: includesSpamTrash(path),
            ...(pageToken !== undefined && { pageToken }),
          },
          o,
        ),
      );
      const metas = await this.metadata((page.messages ?? []).map((m) => m.id ?? ''));
      const folders = await this.foldersKnowing(metas);
      for (const m of metas)
        if (positionOf(m) < below && folders.holds(path, m.labelIds)) out.push(await summaryOf(m, folders));
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken !== undefined && out.length < count);
    return out.sort((a, b) => b.position - a.position).slice(0, count);
  }

  async fetchMessage(path: string, ref: string): Promise<FullMessage | undefined> {
    const m = await this.full(path, ref);
    if (m === undefined) return undefined;
    const { text, html, attachments, headers } = await contentOf(m);
    return {
      summary: await summaryOf(m, await this.foldersKnowing([m])),
      cc: headers.cc,
      replyTo: headers.replyTo,
      inReplyTo: headers.inReplyTo,
      references: headers.references,
      text,
      html,
      attachments,
      authenticationResults: headers.authenticationResults,
    };
  }

  async fetchRaw(path: string, ref: string): Promise<Uint8Array | undefined> {
    if (!validId(ref)) return undefined;
    const m = await this.api.find('the message', (g, o) =>
      g.users.messages.get({ userId: 'me', id: ref, format: 'raw' }, o),
    );
    if (m === undefined || (m.sizeEstimate ?? 0) > MAX_RAW_BYTES) return undefined;
    if (!(await this.foldersKnowing([m])).holds(path, m.labelIds)) return undefined;
    const bytes = Buffer.from(m.raw ?? '', 'base64url');
    return bytes.length > MAX_RAW_BYTES ? undefined : new Uint8Array(bytes);
  }

  async search(query: string, paths: readonly string[], limit: number): Promise<SearchHit[]> {
    const hits = new Map<string, SearchHit>();
    for (const path of paths) {
      const selector = listSelector(path);
      const page = await this.api.call('the search', (g, o) =>
        g.users.messages.list(
          {
            userId: 'me',
            ...(selector.labelIds !== undefined && { labelIds: selector.labelIds }),
            q: [query, selector.q].filter((x) => x !== undefined).join(' '),
            maxResults: limit,
            includeSpamTrash: includesSpamTrash(path),
          },
          o,
        ),
      );
      const ids = (page.messages ?? []).map((m) => m.id ?? '').filter((id) => !hits.has(id));
      const metas = await this.metadata(ids);
      const folders = await this.foldersKnowing(metas);
      for (const m of metas)
        if (folders.holds(path, m.labelIds))
          hits.set(m.id ?? '', { path, summary: await summaryOf(m, folders) });
    }
    return [...hits.values()].sort((a, b) => b.summary.position - a.summary.position).slice(0, limit);
  }

  async openAttachment(path: string, ref: string, partId: string): Promise<AttachmentContent | undefined> {
    const m = await this.full(path, ref);
    const part = m === undefined ? undefined : partById(m, partId);
    if (part === undefined || (part.mimeType ?? '').toLowerCase().startsWith('multipart/')) return undefined;
    let data = part.body?.data ?? undefined;
    const attachmentId = part.body?.attachmentId ?? undefined;
    if (data === undefined && attachmentId !== undefined) {
      const body = await this.api.find('the attachment', (g, o) =>
        g.users.messages.attachments.get({ userId: 'me', messageId: ref, id: attachmentId }, o),
      );
      data = body?.data ?? undefined;
    }
    if (data === undefined) return undefined;
    const bytes = new Uint8Array(Buffer.from(data, 'base64url'));
    return {
      filename: (await filenameOf(part)) || `attachment-${partId}`,
      contentType: (part.mimeType ?? 'application/octet-stream').toLowerCase(),
      size: bytes.length,
      content: (async function* () {
        await Promise.resolve();
        yield bytes;
      })(),
    };
  }

  async move(path: string, refs: readonly string[], toPath: string): Promise<Map<string, Placed>> {
    const present = await this.within(path, refs);
    const { add, remove } = moveLabels(path, toPath);
    try {
      await this.modify(
        present.map((m) => m.id ?? ''),
        add,
        remove,
      );
    } catch (e) {
      // A label the person deleted is refused (400): said as the destination gone, not as Gmail refusing.
      if (!(e instanceof GmailStatusError) || e.status !== 400 || add.length === 0) throw e;
      const label = await this.api.find('the label', (g, o) =>
        g.users.labels.get({ userId: 'me', id: toPath }, o),
      );
      if (label === undefined)
        throw new FolderGoneError(
          'Could not move the messages: the label they were to get is no longer in the mailbox.',
        );
      throw e;
    }
    return new Map(present.map((m) => [m.id ?? '', { ref: m.id ?? '', position: positionOf(m) }]));
  }

  async setFlags(
    path: string,
    refs: readonly string[],
    add: readonly string[],
    remove: readonly string[],
  ): Promise<ReadonlySet<string>> {
    const adding = await this.labelIdsFor(add, true);
    const removing = await this.labelIdsFor(remove, false);
    // IMAP's \Seen is the absence of UNREAD: adding it removes UNREAD and the other way round.
    if (add.includes('\\Seen')) removing.push('UNREAD');
    if (remove.includes('\\Seen')) adding.push('UNREAD');
    const present = (await this.within(path, refs)).map((m) => m.id ?? '');
    await this.modify(
      present,
      adding.filter((l) => !removing.includes(l)),
      removing,
    );
    return new Set(present);
  }

  async append(
    path: string,
    raw: Uint8Array,
    flags: readonly string[],
    date: Date,
  ): Promise<Placed | undefined> {
    const encoded = Buffer.from(raw).toString('base64url');
    if (path === 'DRAFT') {
      const draft = await this.createDraft(raw);
      const id = draft.message?.id ?? undefined;
      if (id === undefined) return undefined;
      const [m] = await this.minimal([id]);
      return { ref: id, position: m === undefined ? date.getTime() * 1000 : positionOf(m) };
    }
    // labelIdsFor maps \Flagged to STARRED and keywords to user labels; \Seen is the absence of UNREAD.
    const labelIds = [
      ...new Set([
        ...moveLabels(ARCHIVE, path).add,
        ...(flags.includes('\\Seen') ? [] : ['UNREAD']),
        ...(await this.labelIdsFor(flags, true)),
      ]),
    ];
    const m = await this.api.call(
      'the message',
      (g, o) =>
        g.users.messages.insert(
          { userId: 'me', internalDateSource: 'dateHeader', requestBody: { raw: encoded, labelIds } },
          o,
        ),
      'once',
    );
    return m.id == null ? undefined : { ref: m.id, position: positionOf(m) };
  }

  async deleteOwnDraft(path: string, ref: string): Promise<void> {
    const draftId = await this.draftIdOf(ref);
    if (draftId !== undefined) {
      await this.api.find('the draft', (g, o) => g.users.drafts.delete({ userId: 'me', id: draftId }, o));
      return;
    }
    // Not a draft (any more): Gmail keeps no permanent delete in our hands, so it goes to Trash.
    if ((await this.within(path, [ref])).length > 0)
      await this.api.call('the message', (g, o) => g.users.messages.trash({ userId: 'me', id: ref }, o));
  }

  /** Writes `raw` as a draft, replacing the draft `draftId` when given; returns the draft's id. */
  async writeDraft(raw: Uint8Array, draftId: string | undefined): Promise<string> {
    if (draftId === undefined) {
      const id = (await this.createDraft(raw)).id ?? undefined;
      if (id === undefined) throw new MailProviderError('Gmail did not return the draft');
      return id;
    }
    const threadId = await this.threadOf(raw);
    const message = {
      raw: Buffer.from(raw).toString('base64url'),
      ...(threadId !== undefined && { threadId }),
    };
    await this.api.call('the draft', (g, o) =>
      g.users.drafts.update({ userId: 'me', id: draftId, requestBody: { id: draftId, message } }, o),
    );
    return draftId;
  }

  /** Sends a draft (Gmail files it in Sent): one request, never repeated by the API layer. */
  async sendDraft(draftId: string): Promise<void> {
    await this.api.call(
      'sending the draft',
      (g, o) => g.users.drafts.send({ userId: 'me', requestBody: { id: draftId } }, o),
      'once',
    );
  }

  private async createDraft(raw: Uint8Array): Promise<gmail_v1.Schema$Draft> {
    const threadId = await this.threadOf(raw);
    const message = {
      raw: Buffer.from(raw).toString('base64url'),
      ...(threadId !== undefined && { threadId }),
    };
    return this.api.call(
      'the draft',
      (g, o) => g.users.drafts.create({ userId: 'me', requestBody: { message } }, o),
      'once',
    );
  }

  /** The display name of the primary send-as address: the name Gmail itself writes on the person's mail. */
  async ownName(): Promise<string | undefined> {
    const res = await this.api.call('the send-as settings', (g, o) =>
      g.users.settings.sendAs.list({ userId: 'me' }, o),
    );
    const primary = (res.sendAs ?? []).find((s) => s.isPrimary === true);
    const name = primary?.displayName?.trim();
    return name === undefined || name === '' ? undefined : name;
  }

  async listLabels(): Promise<string[]> {
    return (await this.folders())
      .userLabels()
      .map((l) => l.name ?? '')
      .filter((n) => n !== '');
  }

  async createFolder(name: string): Promise<void> {
    if ((await this.folders()).userLabel(name) !== undefined) return;
    try {
      await this.api.call('the label', (g, o) =>
        g.users.labels.create(
          {
            userId: 'me',
            requestBody: { name, labelListVisibility: 'labelShow', messageListVisibility: 'show' },
          },
          o,
        ),
      );
    } catch (e) {
      // 409 (or 400 "exists"): created meanwhile, which is what we wanted.
      if (!(e instanceof GmailStatusError && (e.status === 409 || e.status === 400))) throw e;
    }
    this.labels = undefined;
  }

  async makeLabels(names: readonly string[]): Promise<string[]> {
    const made: string[] = [];
    for (const name of new Set(names)) {
      if (name.startsWith('\\') || (await this.folders()).userLabel(name) !== undefined) continue;
      await this.createFolder(name);
      // Gmail refuses a label named as one of its own (INBOX, TRASH, SPAM, CATEGORY_…): the change then set nothing
      // and was reported made (decision 0073).
      if ((await this.folders()).userLabel(name)?.id == null)
        throw new MailProviderError(
          `Gmail did not make the label “${name}”: the name is one Gmail keeps for its own labels, or one it refuses`,
        );
      made.push(name);
    }
    return made;
  }

  async removeLabelIfUnused(name: string): Promise<boolean> {
    // By name only (userLabel also takes an id): the label a change made, never another that an id happens to name.
    const folders = await this.folders();
    const id = folders.userLabelNamed(name)?.id;
    if (id == null) return false;
    // A label the person has built on since is theirs: one nested under it, or a filter that gives or takes it.
    const nested = `${name.toLowerCase()}/`;
    if (folders.userLabels().some((l) => (l.name ?? '').toLowerCase().startsWith(nested))) return false;
    // Counted by Gmail as it is now: a label the person has since put on mail (in Trash or Spam too) is theirs.
    const now = await this.api.find('the label', (g, o) => g.users.labels.get({ userId: 'me', id }, o));
    if (now?.messagesTotal !== 0) return false;
    const filters = await this.api.call('the filters', (g, o) =>
      g.users.settings.filters.list({ userId: 'me' }, o),
    );
    const inFilter = (filters.filter ?? []).some(
      (f) => f.action?.addLabelIds?.includes(id) === true || f.action?.removeLabelIds?.includes(id) === true,
    );
    if (inFilter) return false;
    this.labels = undefined;
    try {
      await this.api.call('the label', (g, o) => g.users.labels.delete({ userId: 'me', id }, o));
    } catch (e) {
      // Deleted meanwhile, by the person or another undo: gone, as wanted, though not by us.
      if (e instanceof GmailStatusError && e.status === 404) return false;
      throw e;
    }
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.watchers].map((stop) => stop()));
  }

  // — internals —

  /** The labels, re-read once when a message carries a label made since they were read (by another client). */
  private async foldersKnowing(messages: readonly Message[]): Promise<GmailFolders> {
    const folders = await this.folders();
    if (messages.every((m) => folders.knowsAll(m.labelIds ?? []))) return folders;
    this.labels = undefined;
    return this.folders();
  }

  private folders(): Promise<GmailFolders> {
    this.labels ??= this.api
      .call('the labels', (g, o) => g.users.labels.list({ userId: 'me' }, o))
      .then((r) => new GmailFolders(r.labels ?? []))
      .catch((e: unknown) => {
        this.labels = undefined;
        throw e;
      });
    return this.labels;
  }

  private profile(): Promise<gmail_v1.Schema$Profile> {
    return this.api.call('the mailbox profile', (g, o) => g.users.getProfile({ userId: 'me' }, o));
  }

  /** Label ids for flags: system flags map to system labels, keywords to user labels (created when adding). */
  private async labelIdsFor(flags: readonly string[], create: boolean): Promise<string[]> {
    const ids: string[] = [];
    if (create) await this.makeLabels(flags);
    for (const f of flags) {
      if (f === '\\Flagged') ids.push('STARRED');
      if (f.startsWith('\\')) continue;
      const id = (await this.folders()).userLabel(f)?.id;
      if (id != null) ids.push(id);
    }
    return ids;
  }

  private async modify(
    ids: readonly string[],
    add: readonly string[],
    remove: readonly string[],
  ): Promise<void> {
    if (ids.length === 0 || (add.length === 0 && remove.length === 0)) return;
    for (let i = 0; i < ids.length; i += BATCH_IDS) {
      const chunk = ids.slice(i, i + BATCH_IDS);
      await this.api.call('the label change', (g, o) =>
        g.users.messages.batchModify(
          { userId: 'me', requestBody: { ids: chunk, addLabelIds: [...add], removeLabelIds: [...remove] } },
          o,
        ),
      );
    }
  }

  private async full(path: string, ref: string): Promise<Message | undefined> {
    if (!validId(ref)) return undefined;
    const m = await this.api.find('the message', (g, o) =>
      g.users.messages.get({ userId: 'me', id: ref, format: 'full' }, o),
    );
    return m !== undefined && (await this.foldersKnowing([m])).holds(path, m.labelIds) ? m : undefined;
  }

  /** Which of these known refs are still in the folder, after an expired history (`stillInFolder`). */
  private stillIn(path: string, refs: readonly string[]): Promise<string[]> {
    return stillInFolder(refs, {
      // A page of the list names 500 ids for the quota of one read (5 units each).
      pageSize: LIST_PAGE,
      size: async () =>
        (path === ARCHIVE
          ? (await this.profile()).messagesTotal // all of the mailbox: more than Archive, never less
          : (await this.api.find('the label', (g, o) => g.users.labels.get({ userId: 'me', id: path }, o)))
              ?.messagesTotal) ?? undefined,
      listIds: async () => new Set(await this.listIds(path, Number.POSITIVE_INFINITY)),
      read: async (unsure) => (await this.within(path, unsure)).map((m) => m.id ?? ''),
    });
  }

  /**
   * The ids of the folder's newest `limit` messages (all of them for Infinity), as messages.list with `listSelector`
   * names them (`within` agrees), newest first.
   */
  private async listIds(path: string, limit: number): Promise<string[]> {
    const selector = listSelector(path);
    const ids: string[] = [];
    let pageToken: string | undefined;
    while (ids.length < limit) {
      const page = await this.api.call('the message list', (g, o) =>
        g.users.messages.list(
          {
            userId: 'me',
            ...selector,
            maxResults: Math.min(LIST_PAGE, limit - ids.length),
            includeSpamTrash: includesSpamTrash(path),
            ...(pageToken !== undefined && { pageToken }),
          },
          o,
        ),
      );
      ids.push(...(page.messages ?? []).map((m) => m.id ?? ''));
      pageToken = page.nextPageToken ?? undefined;
      if (pageToken === undefined) break;
    }
    return ids.slice(0, limit);
  }

  /** Labels and dates of those of these messages that are in the folder `path`. */
  private async within(path: string, refs: readonly string[]): Promise<Message[]> {
    const found = await this.minimal(refs);
    const folders = await this.foldersKnowing(found);
    return found.filter((m) => folders.holds(path, m.labelIds));
  }

  /** Labels and dates of these messages; ones that are gone are left out. */
  private async minimal(refs: readonly string[]): Promise<Message[]> {
    return mapPresent(refs.filter(validId), PARALLEL, (id) =>
      this.api.find('the message', (g, o) =>
        g.users.messages.get({ userId: 'me', id, format: 'minimal' }, o),
      ),
    );
  }

  private metadata(ids: readonly string[]): Promise<Message[]> {
    return mapPresent(ids.filter(validId), PARALLEL, (id) =>
      this.api.find('the message', (g, o) =>
        g.users.messages.get(
          { userId: 'me', id, format: 'metadata', metadataHeaders: [...SUMMARY_HEADERS] },
          o,
        ),
      ),
    );
  }

  /**
   * The newest `windowSize` messages of the folder; the cursor starts at the current history id. A reset on a first
   * sync. After the cursor's history expired (404), Gmail's ids still name the same messages, so it is not a reset:
   * the window comes as `added` (the index keeps its rows and their ids), and known messages no longer in the folder
   * are `removed` (decision 0045).
   */
  private async freshWindow(
    path: string,
    opts: ChangeOptions,
    expired: SyncCursor | null = null,
  ): Promise<FolderChanges> {
    const historyId = (await this.profile()).historyId ?? '0';
    const listed = await this.listIds(path, opts.windowSize);
    const window = new FreshWindow(opts, expired === null);
    for (let i = 0; i < listed.length; i += HAND_OVER) {
      const batch: RemoteSummary[] = [];
      const metas = await this.metadata(listed.slice(i, i + HAND_OVER));
      const folders = await this.foldersKnowing(metas);
      for (const m of metas) if (folders.holds(path, m.labelIds)) batch.push(await summaryOf(m, folders));
      await window.take(batch);
    }
    const { windowLow, uidNext, removed } = await window.end((refs) => this.stillIn(path, refs));
    return {
      cursor: {
        uidValidity: expired?.uidValidity ?? `gmail:${historyId}`,
        uidNext,
        highestModseq: historyId,
        windowLow,
      },
      reset: window.reset,
      added: window.added,
      flags: [],
      removed,
    };
  }

  /** Applies history to one folder: every message it names is re-read, so its order never matters. */
  private async applyHistory(
    path: string,
    cursor: SyncCursor,
    history: History,
    opts: ChangeOptions,
  ): Promise<FolderChanges> {
    const next = { ...cursor, highestModseq: history.historyId };
    if (history.touched.length === 0)
      return { cursor: next, reset: false, added: [], flags: [], removed: [] };
    const known = new Set(opts.knownRefs);
    const read = await this.metadata(history.touched);
    const folders = await this.foldersKnowing(read);
    const metas = new Map(read.map((m) => [m.id ?? '', m]));
    const added: RemoteSummary[] = [];
    const flags: FlagState[] = [];
    const removed: string[] = [];
    for (const id of history.touched) {
      const m = metas.get(id);
      if (m === undefined || !folders.holds(path, m.labelIds)) {
        if (known.has(id)) removed.push(id);
      } else if (known.has(id)) flags.push(flagStateOf(id, m.labelIds, folders));
      else added.push(await summaryOf(m, folders));
    }
    const uidNext = added.reduce((n, m) => Math.max(n, m.position + 1), cursor.uidNext);
    const changes = { cursor: { ...next, uidNext }, reset: false, added, flags, removed };
    if (opts.onAdded === undefined) return changes;
    if (added.length > 0) await opts.onAdded(added, false);
    return { ...changes, added: [] };
  }

  /** The history since `start`, read once per session; 'stale' when Gmail no longer has it (404). */
  private history(start: string): Promise<History | 'stale'> {
    let h = this.histories.get(start);
    if (h === undefined) {
      h = this.readHistory(start);
      this.histories.set(start, h);
      h.catch(() => this.histories.delete(start));
    }
    return h;
  }

  private async readHistory(start: string): Promise<History | 'stale'> {
    const touched = new Set<string>();
    let historyId = start;
    let pageToken: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= MAX_HISTORY_PAGES) return 'stale';
      let res: gmail_v1.Schema$ListHistoryResponse;
      try {
        res = await this.api.call('the mailbox history', (g, o) =>
          g.users.history.list(
            {
              userId: 'me',
              startHistoryId: start,
              maxResults: 500,
              ...(pageToken !== undefined && { pageToken }),
            },
            o,
          ),
        );
      } catch (e) {
        if (e instanceof GmailStatusError && e.status === 404) return 'stale';
        throw e;
      }
      for (const record of res.history ?? [])
        for (const m of record.messages ?? []) if (m.id != null) touched.add(m.id);
      historyId = res.historyId ?? historyId;
      pageToken = res.nextPageToken ?? undefined;
      if (pageToken === undefined) return { touched: [...touched], historyId };
    }
  }

  async locate(path: string, internetMessageId: string): Promise<Placed | undefined> {
    const id = messageIds(internetMessageId)[0];
    if (id === undefined) return undefined;
    const found = await this.api.call('the message', (g, o) =>
      g.users.messages.list(
        { userId: 'me', q: `rfc822msgid:${id.slice(1, -1)}`, includeSpamTrash: true, maxResults: 10 },
        o,
      ),
    );
    const [m] = await this.within(
      path,
      (found.messages ?? []).map((x) => x.id ?? ''),
    );
    return m === undefined ? undefined : { ref: m.id ?? '', position: positionOf(m) };
  }

  /** The Gmail thread of the message a reply answers (drafts.create threads by threadId plus the headers). */
  private async threadOf(raw: Uint8Array): Promise<string | undefined> {
    const head =
      Buffer.from(raw.subarray(0, 64 * 1024))
        .toString('latin1')
        .split(/\r?\n\r?\n/)[0] ?? '';
    // The field with its folded lines: the identifier may stand on the next line.
    const inReplyTo = /^in-reply-to:([^\r\n]*(?:\r?\n[ \t][^\r\n]*)*)/im.exec(head)?.[1];
    const parent = messageIds(inReplyTo)[0];
    if (parent === undefined) return undefined;
    const found = await this.api.call('the thread', (g, o) =>
      g.users.messages.list({ userId: 'me', q: `rfc822msgid:${parent.slice(1, -1)}`, maxResults: 1 }, o),
    );
    return found.messages?.[0]?.threadId ?? undefined;
  }

  /** The draft whose message is `ref`; drafts.list is paged through (a mailbox has few drafts). */
  async draftIdOf(ref: string): Promise<string | undefined> {
    let pageToken: string | undefined;
    do {
      const page = await this.api.call('the drafts', (g, o) =>
        g.users.drafts.list(
          { userId: 'me', maxResults: 500, ...(pageToken !== undefined && { pageToken }) },
          o,
        ),
      );
      const hit = (page.drafts ?? []).find((d) => d.message?.id === ref);
      if (hit?.id != null) return hit.id;
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken !== undefined);
    return undefined;
  }
}

interface History {
  readonly touched: readonly string[];
  readonly historyId: string;
}

/** Gmail ids are hex (emulators use other word characters); anything else is not ours to send in a URL. */
function validId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(id);
}
