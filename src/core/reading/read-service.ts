import type { Clock } from '../../lib/clock.ts';
import type { Principal } from '../auth/principal.ts';
import type { Serializer } from '../../lib/keyed-mutex.ts';
import type { NextStep } from '../next-step.ts';
import { htmlToText } from '../../lib/html-to-text.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { newSecret, sha256Hex } from '../../lib/secret-token.ts';
import type { InboxPlace, InboxWithFolders, SelectedPageQuery } from '../inboxes/inbox-store.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import type { SecretLinkStore } from '../inboxes/secret-link-store.ts';
import { parseAuthResults, type AuthSignals } from '../mail/auth-results.ts';
import { MailAuthError, MailProviderError, type MailSession } from '../mail/mail-ports.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import type { AttachmentContent, AttachmentInfo, RemoteSummary } from '../mail/mail-types.ts';
import type { Folder } from '../messages/folder.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import { parseMessageId, type Address, type MessageSummary } from '../messages/message.ts';
import type { MessageHeadline, MessageStore } from '../messages/message-store.ts';
import {
  cleanAddress,
  cleanBody,
  cleanText,
  fenceCleaned,
  type CleanedBody,
} from '../messages/untrusted-content.ts';
import type { ChangeCounter } from '../sync/change-counter.ts';
import { resolveFolder } from '../sync/folder-names.ts';
import { stillThere, toSummary } from '../sync/sync-service.ts';
import { ContentCache } from './content-cache.ts';

export type ReadError = {
  readonly code:
    'message_not_found' | 'invalid_arguments' | 'not_supported' | 'provider_error' | 'needs_reconnect';
  readonly message: string;
  readonly next?: NextStep;
};

export interface MessagePreview {
  readonly messageId: string;
  readonly folder: string;
  readonly threadId: string | null;
  readonly subject: string;
  readonly from: { address: string; name: string };
  readonly date: string;
  readonly snippet: string;
  readonly unread: boolean;
  readonly starred: boolean;
  readonly labels: readonly string[];
  readonly hasAttachments: boolean;
  readonly isList: boolean;
}

/** What a listing of the index asks for (an agent's page, the triage view's). */
export interface ListQuery {
  readonly unreadOnly?: boolean | undefined;
  readonly query?: string | undefined;
  /** A folder's canonical id, id, path or name; none for every selected folder. */
  readonly folder?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

const pageQuery = (q: ListQuery): SelectedPageQuery => {
  const text = q.query?.trim() ?? '';
  return {
    ...(q.unreadOnly === true && { unreadOnly: true }),
    ...(text !== '' && { text }),
    limit: q.limit,
    offset: q.offset,
  };
};

const samePageQuery = (a: SelectedPageQuery, b: SelectedPageQuery) =>
  a.unreadOnly === b.unreadOnly && a.text === b.text && a.limit === b.limit && a.offset === b.offset;

/**
 * The page `ReadService.listMessages` shows when no folder is named: a caller reads it with the inbox
 * (InboxService.usableWithFolders), one statement where it would take two (decision 0047). None when a folder is
 * named: which one is the folder resolution's rule, applied to the folders read first.
 */
export const selectedPageQuery = (q: ListQuery): SelectedPageQuery | undefined =>
  q.folder === undefined ? pageQuery(q) : undefined;

/** What reading a message whole takes from the provider, every sender-written word cleaned; fenced per answer. */
export interface MessageContent {
  readonly to: readonly Address[];
  readonly cc: readonly Address[];
  readonly replyTo: readonly Address[];
  readonly internetMessageId: string | null;
  readonly inReplyTo: string | null;
  /** Cleaned and cut, not yet fenced: each answer fences it with a nonce of its own. */
  readonly body: CleanedBody;
  readonly bodyFromHtml: boolean;
  /** Filenames cleaned of control and direction characters. */
  readonly attachments: readonly AttachmentInfo[];
  /** The receiving server's verdicts on the message (its topmost Authentication-Results): keywords only. */
  readonly authentication: AuthSignals;
}

/** How long message content read from the provider is kept, and how much of it (decision 0032). */
export const CONTENT_CACHE = { ttlMs: 5 * 60_000, maxEntries: 500, maxWeight: 4_000_000 } as const;

export interface ReadServiceDeps {
  readonly folders: FolderStore;
  readonly messages: MessageStore;
  readonly sessions: MailSessionFactory;
  readonly links: SecretLinkStore;
  readonly clock: Clock;
  readonly baseUrl: string;
  readonly maxBodyChars: number;
  /**
   * The serializer actions and undos on an inbox run under: a read that finds a message gone removes its row only
   * once the action running on the inbox is done (decision 0040).
   */
  readonly serial: Serializer;
  /** How many changes actions and undos have made to each inbox's mailbox (decision 0034). */
  readonly changes: ChangeCounter;
}

const ATTACHMENT_LINK_TTL_MS = 10 * 60_000;

/** Reading mail: from the local index where it can, from the provider where it must. */
export class ReadService {
  private readonly deps: ReadServiceDeps;
  private readonly contents: ContentCache<MessageContent>;
  constructor(deps: ReadServiceDeps) {
    this.deps = deps;
    this.contents = new ContentCache({ clock: deps.clock, ...CONTENT_CACHE });
  }

  /** Labels in use on synced mail (IMAP keywords; Gmail labels once the Gmail adapter lands). */
  /** Labels in use on indexed mail, and those the provider keeps a list of (Gmail labels, Outlook categories). */
  async labels(inbox: Inbox): Promise<Result<string[], ReadError>> {
    const inUse = await this.deps.messages.labelsInUse(inbox.id);
    if (!this.deps.sessions.definesLabels(inbox)) return ok(inUse);
    return this.withSession(inbox, async (session) =>
      ok([...new Set([...inUse, ...(await session.listLabels())])].sort((a, b) => a.localeCompare(b))),
    );
  }

  /**
   * A page of the index; `place` is the inbox with its folders as just read (InboxService.usableWithFolders), and
   * the page itself when it was read with them (`selectedPageQuery`, decision 0047).
   */
  async listMessages(
    place: InboxPlace,
    q: ListQuery,
  ): Promise<
    Result<
      { messages: MessagePreview[]; total: number; nextOffset: number | null; folders: string[] },
      ReadError
    >
  > {
    const { inbox, folders } = place;
    const selected = folders.filter((f) => f.selected);
    let scope: readonly Folder[];
    if (q.folder !== undefined) {
      const f = resolveFolder(folders, q.folder);
      if (f === undefined)
        return err({
          code: 'invalid_arguments',
          message: `No folder named "${q.folder.slice(0, 100)}".`,
          next: 'pick_listed_folder',
        });
      if (!f.selected)
        return err({
          code: 'invalid_arguments',
          message: `Folder "${f.name}" is not synced.`,
          next: 'select_folder',
        });
      scope = [f];
    } else {
      scope = selected;
    }
    const wanted = pageQuery(q);
    const read = place.selectedPage;
    const page =
      q.folder === undefined && read !== undefined && samePageQuery(read.query, wanted)
        ? read.page
        : await this.deps.messages.headlines(inbox.id, { folderIds: scope.map((f) => f.id), ...wanted });
    const names = new Map(folders.map((f) => [f.id, folderLabel(f)]));
    const nextOffset = q.offset + page.items.length < page.total ? q.offset + page.items.length : null;
    return ok({
      messages: page.items.map((m) => headlinePreview(m, names.get(m.folderId) ?? '')),
      total: page.total,
      nextOffset,
      folders: scope.map(folderLabel),
    });
  }

  /** One message with its content; `place` is the inbox with its folders as just read (`usableWithFolders`). */
  async getMessage(place: InboxWithFolders, messageId: string) {
    const { inbox } = place;
    const found = await this.locate(place, messageId);
    if (!found.ok) return found;
    const { message, folder } = found.value;
    const content = await this.content(inbox, folder, message);
    if (!content.ok) return content;
    const c = content.value;
    const fenced = fenceCleaned(c.body);
    return ok({
      ...preview(message, folderLabel(folder)),
      to: c.to,
      cc: c.cc,
      replyTo: c.replyTo,
      internetMessageId: c.internetMessageId,
      inReplyTo: c.inReplyTo,
      bodyUntrusted: fenced.bodyUntrusted,
      bodyTruncated: fenced.truncated,
      bodyFromHtml: c.bodyFromHtml,
      attachments: c.attachments,
      authentication: c.authentication,
      listUnsubscribe: message.listUnsubscribe,
      listUnsubscribePost: message.listUnsubscribePost,
    });
  }

  /**
   * What a message holds beyond its index row, read from the provider once and then kept for a few minutes
   * (decision 0032): a message's content never changes under its folder, UIDVALIDITY and provider ref — except a
   * draft's, which Microsoft Graph edits in place, so drafts are always read afresh.
   */
  private async content(
    inbox: Inbox,
    folder: Folder,
    message: MessageSummary,
  ): Promise<Result<MessageContent, ReadError>> {
    const key =
      folder.canonical === 'drafts'
        ? undefined
        : `${folder.id}\u0000${folder.sync.uidValidity ?? ''}\u0000${message.providerRef}`;
    const kept = key === undefined ? undefined : this.contents.get(key);
    if (kept !== undefined) return ok(kept);
    return this.withSession(inbox, async (session) => {
      const full = await session.fetchMessage(folder.path, message.providerRef);
      if (full === undefined) {
        // Gone at the provider since the last sync: drop it from the index too — after the action running on the
        // inbox, if any: one that moved this message has then re-pointed its row, and the removal finds nothing
        // left at the old place (removed at once, the row and the message's id would be lost; decision 0040).
        await this.deps.serial.run([inbox.id], () =>
          this.deps.messages.removeByRefs(folder.id, [message.providerRef]),
        );
        return err<ReadError>({
          code: 'message_not_found',
          message: 'This message no longer exists in the mailbox.',
        });
      }
      const text = full.text.trim() !== '' ? full.text : full.html === null ? '' : htmlToText(full.html);
      const c: MessageContent = {
        to: full.summary.to.map(visible),
        cc: full.cc.map(visible),
        replyTo: full.replyTo.map(visible),
        internetMessageId: full.summary.internetMessageId,
        inReplyTo: full.inReplyTo,
        body: cleanBody(text, this.deps.maxBodyChars),
        bodyFromHtml: full.text.trim() === '' && full.html !== null,
        attachments: full.attachments.map((a) => ({
          partId: a.partId,
          filename: cleanText(a.filename),
          contentType: a.contentType,
          size: a.size,
          inline: a.inline,
        })),
        authentication: parseAuthResults(full.authenticationResults),
      };
      if (key !== undefined) this.contents.set(key, c, contentWeight(c));
      return ok(c);
    });
  }

  /** Searches at the provider: the named folder, or every folder except Spam and Trash. Hits join the index. */
  async search(place: InboxWithFolders, query: string, folderName: string | undefined, limit: number) {
    const { inbox, folders } = place;
    let scope: Folder[];
    if (folderName !== undefined) {
      const f = resolveFolder(folders, folderName);
      if (f === undefined)
        return err<ReadError>({
          code: 'invalid_arguments',
          message: `No folder named "${folderName.slice(0, 100)}".`,
          next: 'pick_listed_folder',
        });
      if (!f.selected)
        return err<ReadError>({
          code: 'invalid_arguments',
          message: `Folder "${f.name}" is not among the inbox's selected folders.`,
          next: 'select_folder',
        });
      scope = [f];
    } else {
      scope = folders.filter(
        (f) => f.canonical !== 'spam' && f.canonical !== 'trash' && f.canonical !== 'all',
      );
    }
    if (scope.length === 0)
      return err<ReadError>({
        code: 'invalid_arguments',
        message: 'No folders known yet.',
        next: 'sync_first',
      });
    const byPath = new Map(scope.map((f) => [f.path, f]));
    return this.withSession(inbox, async (session) => {
      const before = await this.deps.changes.read(inbox.id);
      const hits = await session.search(
        // A line break or another control character is a space in a query (a mail server refused a search with a
        // line break in it, and the agent was told the mailbox could not be read).
        query.replace(/[\p{Cc}\s]+/gu, ' ').trim(),
        scope.map((f) => f.path),
        limit,
      );
      // Hits join the index in one write, then are read back per folder: a fixed number of statements, not two
      // per hit.
      const found = hits.slice(0, limit).flatMap((hit) => {
        const folder = byPath.get(hit.path);
        return folder === undefined ? [] : [{ folder, ref: hit.summary.ref, summary: hit.summary }];
      });
      await this.indexRead(inbox, session, before, found);
      const stored = new Map<string, MessageSummary>();
      for (const folder of new Set(found.map((h) => h.folder)))
        for (const m of await this.deps.messages.findByRefs(
          folder.id,
          found.filter((h) => h.folder === folder).map((h) => h.ref),
        ))
          stored.set(`${folder.id} ${m.providerRef}`, m);
      const results: MessagePreview[] = [];
      for (const h of found) {
        const m = stored.get(`${h.folder.id} ${h.ref}`);
        if (m !== undefined) results.push(preview(m, folderLabel(h.folder)));
      }
      return ok({ messages: results, searched: scope.map(folderLabel) });
    });
  }

  /** Extends one selected folder's window past its oldest synced message. */
  async loadOlder(place: InboxWithFolders, folderName: string, count: number) {
    const { inbox, folders } = place;
    if (inbox.provider === 'microsoft' && !inbox.isDemo)
      return err<ReadError>({
        code: 'not_supported',
        message: 'Loading older mail is not available for Microsoft inboxes yet.',
      });
    const folder = resolveFolder(folders, folderName);
    if (folder === undefined)
      return err<ReadError>({
        code: 'invalid_arguments',
        message: `No folder named "${folderName.slice(0, 100)}".`,
        next: 'pick_listed_folder',
      });
    if (!folder.selected)
      return err<ReadError>({
        code: 'invalid_arguments',
        message: `Folder "${folder.name}" is not among the inbox's selected folders.`,
        next: 'select_folder',
      });
    const low = folder.sync.windowLow;
    if (low === null)
      return err<ReadError>({
        code: 'invalid_arguments',
        message: 'This folder has not been synced yet.',
        next: 'sync_first',
      });
    return this.withSession(inbox, async (session) => {
      const before = await this.deps.changes.read(inbox.id);
      const older = await session.fetchOlder(folder.path, low, count);
      await this.indexRead(
        inbox,
        session,
        before,
        older.map((summary) => ({ folder, summary })),
      );
      const newLow = older.reduce((min, m) => Math.min(min, m.position), low);
      // Not a compare-and-set on the version read with the inbox: a sync that wrote the folder's state since would
      // make it fail, and the next call would load this page again.
      if (newLow < low) await this.deps.folders.lowerWindow(folder.id, folder.sync.uidValidity, newLow);
      const label = folderLabel(folder);
      const loaded: MessagePreview[] = (
        await this.deps.messages.findByRefs(
          folder.id,
          older.map((m) => m.ref),
        )
      ).map((stored) => preview(stored, label));
      return ok({ loaded, folder: folderLabel(folder), moreAvailable: older.length === count });
    });
  }

  /**
   * A short-lived download link for one attachment of one message of this account, for the credential that asked:
   * the link works only while that credential does (decision 0120).
   */
  async attachmentLink(
    place: InboxWithFolders,
    messageId: string,
    partId: string,
    issuedTo: Principal['credential'],
  ) {
    const { inbox } = place;
    const found = await this.locate(place, messageId);
    if (!found.ok) return found;
    const content = await this.content(inbox, found.value.folder, found.value.message);
    if (!content.ok) return content;
    const part = content.value.attachments.find((a) => a.partId === partId);
    if (part === undefined)
      return err<ReadError>({
        code: 'invalid_arguments',
        message: 'No attachment with this part id on the message.',
        next: 'use_part_from_message',
      });
    const token = newSecret('att_', 40);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + ATTACHMENT_LINK_TTL_MS);
    await this.deps.links.create({
      idHash: sha256Hex(token),
      purpose: 'attachment',
      accountId: inbox.accountId,
      inboxId: inbox.id,
      payload: { messageId, partId, issuedTo: { kind: issuedTo.kind, id: issuedTo.id } },
      createdAt: now,
      expiresAt,
    });
    return ok({
      url: `${this.deps.baseUrl}/attachments/${token}`,
      expiresAt: expiresAt.toISOString(),
      filename: part.filename,
      contentType: part.contentType,
      size: part.size,
    });
  }

  /** Streams the attachment a download link names; the session stays open until the stream ends. */
  async openAttachment(
    inbox: Inbox,
    messageId: string,
    partId: string,
  ): Promise<{ content: AttachmentContent; done: () => Promise<void> } | undefined> {
    const found = await this.locate({ inbox }, messageId);
    if (!found.ok) return undefined;
    const session = await this.deps.sessions.open(inbox);
    try {
      const content = await session.openAttachment(
        found.value.folder.path,
        found.value.message.providerRef,
        partId,
      );
      if (content === undefined) {
        await session.close();
        return undefined;
      }
      return { content, done: () => session.close() };
    } catch (e) {
      await session.close().catch(() => undefined);
      throw e;
    }
  }

  /** The indexed message and its folder: from `folders` when the caller read them with the inbox, else looked up. */
  private async locate(
    {
      inbox,
      folders,
      messages,
    }: {
      readonly inbox: Inbox;
      readonly folders?: readonly Folder[];
      readonly messages?: readonly MessageSummary[];
    },
    messageId: string,
  ): Promise<Result<{ message: MessageSummary; folder: Folder }, ReadError>> {
    const id = parseMessageId(messageId);
    // Read with the inbox when the caller asked for it (InboxService.usableWithFolders, decision 0047).
    const message =
      id === undefined
        ? undefined
        : (messages?.find((m) => m.id === id) ?? (await this.deps.messages.get(inbox.id, id)));
    if (message === undefined)
      return err({
        code: 'message_not_found',
        message: 'No message with this id in this inbox.',
        next: 'use_listed_message_ids',
      });
    const folder =
      folders === undefined
        ? await this.deps.folders.get(inbox.id, message.folderId)
        : folders.find((f) => f.id === message.folderId);
    if (folder === undefined)
      return err({ code: 'message_not_found', message: 'The message’s folder is gone.', next: 'sync_first' });
    return ok({ message, folder });
  }

  /**
   * Writes messages a read found at the provider into the index by the sync's rules: under the inbox's serializer, so
   * never between an action's move and its re-pointing of the row (decision 0033), and — when an action changed the
   * mailbox after `before` was read, before the provider was — only what the provider still has where it was read,
   * with its flags as they are now (decision 0034). Written as read, a message moved away meanwhile would be indexed
   * a second time, at the place it left (decision 0040).
   */
  private async indexRead(
    inbox: Inbox,
    session: MailSession,
    before: number,
    found: readonly { folder: Folder; summary: RemoteSummary }[],
  ): Promise<void> {
    if (found.length === 0) return;
    await this.deps.serial.run([inbox.id], async () => {
      const changed = (await this.deps.changes.read(inbox.id)) !== before;
      const rows: MessageSummary[] = [];
      for (const folder of new Set(found.map((h) => h.folder))) {
        let read = found.filter((h) => h.folder === folder).map((h) => h.summary);
        if (changed) {
          const now = await session.flagsOf(
            folder.path,
            read.map((m) => m.ref),
          );
          read = stillThere(read, new Map(now.map((f) => [f.ref, f])));
        }
        for (const m of read) rows.push(toSummary(inbox.id, folder.id, m));
      }
      await this.deps.messages.upsertMany(rows);
    });
  }

  /**
   * Runs `f` on a session of the inbox. The provider refusing the credential marks the inbox for reconnecting and
   * answers `needs_reconnect`; any other provider failure answers `provider_error` with its safe message — never
   * an internal error.
   */
  private async withSession<T>(
    inbox: Inbox,
    f: (s: MailSession) => Promise<Result<T, ReadError>>,
  ): Promise<Result<T, ReadError>> {
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox);
      return await f(session);
    } catch (e) {
      if (e instanceof MailAuthError) {
        return err({
          code: 'needs_reconnect',
          message: `The mailbox refused the stored credential: ${e.message}`,
        });
      }
      if (e instanceof MailProviderError)
        return err({
          code: 'provider_error',
          message: `The mailbox could not be read right now: ${e.message}`,
        });
      throw e;
    } finally {
      await session?.close().catch(() => undefined);
    }
  }
}

export function folderLabel(f: Folder): string {
  return f.canonical ?? f.path;
}

/** About the characters an entry holds: its body, and a little for each address and attachment. */
function contentWeight(c: MessageContent): number {
  return (
    c.body.body.length + 100 * (c.to.length + c.cc.length + c.replyTo.length + c.attachments.length) + 200
  );
}

/** An address as the person sees it: the name and the address with no invisible characters (decision 0106). */
function visible(a: Address): Address {
  return { address: cleanAddress(a.address), name: cleanText(a.name) };
}

/** A preview of a message read whole from the index (the listing reads headlines only). */
export const preview = (m: MessageSummary, folder: string): MessagePreview =>
  headlinePreview({ ...m, isList: m.listId !== null || m.listUnsubscribe !== null }, folder);

export function headlinePreview(m: MessageHeadline, folder: string): MessagePreview {
  return {
    messageId: m.id,
    folder,
    threadId: m.threadId,
    subject: m.subject,
    from: m.from,
    date: m.date.toISOString(),
    snippet: m.snippet,
    unread: m.unread,
    starred: m.starred,
    labels: m.labels,
    hasAttachments: m.hasAttachments,
    isList: m.isList,
  };
}
