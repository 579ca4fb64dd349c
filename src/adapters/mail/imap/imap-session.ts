import type { ImapFlow, MailboxLockObject, MailboxObject } from 'imapflow';
import {
  MAX_RAW_BYTES,
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
import type { Logger } from '../../../lib/logger.ts';
import { folderChanges, olderUids, searchUids } from './folder-changes.ts';
import { toRemoteFolders } from './folder-list.ts';
import { IdleWatcher, type WatchConnection } from './idle-watcher.ts';
import { appendMessage, changeFlags, deleteMessages, moveMessages, uidsOf } from './imap-writer.ts';
import { FolderMissingError, sessionError } from './imap-errors.ts';
import { beforeMove, landedAfterMove, type BeforeMove } from './moved-without-uidplus.ts';
import { openPart, readFullMessage, readRawMessage } from './message-reader.ts';
import { fetchSummaries, flagState } from './summary-fetch.ts';
import { toUidSet } from './uid-set.ts';
import { messageIdOf } from '../mime/header-fields.ts';

export interface ImapSessionDeps {
  readonly client: ImapFlow;
  /** Frees the connection slot this session holds; idempotent. */
  readonly release: () => void;
  /** Takes the connection back for a later session (connection-pool.ts) instead of logging out. */
  readonly recycle?: () => void;
  /** Opens the extra connection a watch needs. */
  readonly openWatchConnection: () => Promise<WatchConnection>;
  /** On a server without IDLE, how often a watch asks for news (idle-watcher.ts). */
  readonly watchPollMs?: number | undefined;
  readonly logger: Logger;
}

const parseUid = (ref: string): number | undefined => (/^[1-9]\d{0,9}$/.test(ref) ? Number(ref) : undefined);
const PART_ID = /^\d+(\.\d+)*$/;

/**
 * A MailSession over one imapflow connection. Every folder operation runs under imapflow's mailbox lock, which
 * serialises them and keeps the right folder selected (EXAMINE: the session only reads). Nothing issues a command
 * while a FETCH is streaming. Watches get connections of their own and end with the session.
 */
export class ImapSession implements MailSession {
  private readonly deps: ImapSessionDeps;
  private readonly log: Logger;
  private readonly watchers = new Set<IdleWatcher>();
  private closed = false;
  /**
   * The folder a reused login still has open from its last session (connection-pool.ts), until this session's first
   * folder operation. Dovecot answers from the view the login had when the folder was opened: mail another connection
   * moved in since is not in it until a command lets the server tell (a UID FETCH of it finds nothing).
   */
  private inherited: MailboxObject | false | undefined;

  constructor(deps: ImapSessionDeps) {
    this.deps = deps;
    this.log = deps.logger;
    this.inherited = deps.client.mailbox;
  }

  async listFolders(): Promise<RemoteFolder[]> {
    this.assertOpen();
    try {
      return toRemoteFolders(await this.deps.client.list());
    } catch (err) {
      throw sessionError(err, 'list the folders', this.log);
    }
  }

  changes(path: string, cursor: SyncCursor | null, opts: ChangeOptions): Promise<FolderChanges> {
    // If taking the lock selected the folder, that SELECT is fresh enough: skip a second one (on a large Maildir
    // each costs Dovecot a directory scan, ~85 ms at 100k messages).
    const before = this.deps.client.mailbox;
    // What the caller's own onAdded throws (its index write: the database, an inbox removed meanwhile) is the
    // caller's failure, not the mail server's: it passes through as thrown.
    const onAdded = opts.onAdded;
    return this.inFolder(path, 'sync the folder', () =>
      folderChanges(this.deps.client, path, cursor, {
        ...opts,
        ...(onAdded !== undefined && {
          onAdded: (batch, reset) =>
            onAdded(batch, reset).catch((err: unknown) => {
              throw new CallerFailure(err);
            }),
        }),
        justSelected: this.deps.client.mailbox !== before && this.deps.client.mailbox !== false,
      }),
    );
  }

  flagsOf(path: string, refs: readonly string[]): Promise<FlagState[]> {
    const uids = refs.map(parseUid).filter((u) => u !== undefined);
    if (uids.length === 0) return Promise.resolve([]);
    return this.inFolder(path, 'read message flags', async () => {
      const out: FlagState[] = [];
      const query = { uid: true, flags: true, labels: true };
      // Unsolicited FETCH responses for other messages of the open folder are not answers (summary-fetch.ts).
      const wanted = new Set(uids);
      for await (const m of this.deps.client.fetch(toUidSet(uids), query, { uid: true }))
        if (m.flags !== undefined && wanted.delete(m.uid)) out.push(flagState(m));
      return out.sort((a, b) => Number(a.ref) - Number(b.ref));
    });
  }

  fetchOlder(path: string, below: number, count: number): Promise<RemoteSummary[]> {
    if (!Number.isSafeInteger(below) || below <= 1 || count <= 0) return Promise.resolve([]);
    return this.inFolder(path, 'load older messages', async () => {
      // A UID is below 2^32 (RFC 9051): a larger bound, NEWEST among them, is the highest a search can name.
      const uids = await olderUids(this.deps.client, Math.min(below, 0xffff_ffff), Math.floor(count));
      const page = await fetchSummaries(this.deps.client, uids);
      return page.reverse();
    });
  }

  async fetchMessage(path: string, ref: string): Promise<FullMessage | undefined> {
    const uid = parseUid(ref);
    if (uid === undefined) return undefined;
    return this.inFolder(path, 'read the message', () => readFullMessage(this.deps.client, uid));
  }

  async fetchRaw(path: string, ref: string): Promise<Uint8Array | undefined> {
    const uid = parseUid(ref);
    if (uid === undefined) return undefined;
    return this.inFolder(path, 'read the message', () =>
      readRawMessage(this.deps.client, uid, MAX_RAW_BYTES),
    );
  }

  /** UID SEARCH HEADER Message-ID: a substring match, exact here because the value keeps its angle brackets. */
  async locate(path: string, internetMessageId: string): Promise<Placed | undefined> {
    const [uid] = await this.withMessageId(path, internetMessageId, 'find the message');
    return uid === undefined ? undefined : { ref: String(uid), position: uid };
  }

  /** The UIDs of the messages in `path` with this Message-ID, ascending. */
  private withMessageId(path: string, internetMessageId: string, action: string): Promise<number[]> {
    return this.inFolder(path, action, () =>
      searchUids(this.deps.client, { header: { 'message-id': internetMessageId } }),
    );
  }

  /**
   * UID SEARCH OR(SUBJECT, FROM, BODY) in each folder (the server searches the whole folder, not only our window),
   * the newest `limit` per folder, then the newest `limit` overall by date. Folders that no longer exist are
   * skipped. Which folders to search (e.g. without Spam and Trash) is the caller's decision.
   */
  async search(query: string, paths: readonly string[], limit: number): Promise<SearchHit[]> {
    const q = query.trim();
    if (q === '' || limit <= 0) return [];
    const hits: SearchHit[] = [];
    for (const path of paths) {
      try {
        const found = await this.inFolder(path, 'search', async () => {
          const criteria = { or: [{ subject: q }, { from: q }, { body: q }] };
          const uids = await searchUids(this.deps.client, criteria);
          return fetchSummaries(this.deps.client, uids.slice(-Math.floor(limit)));
        });
        for (const summary of found) hits.push({ path, summary });
      } catch (err) {
        if (!(err instanceof FolderMissingError)) throw err;
      }
    }
    return hits
      .sort(
        (a, b) =>
          b.summary.date.getTime() - a.summary.date.getTime() || b.summary.position - a.summary.position,
      )
      .slice(0, limit);
  }

  async openAttachment(path: string, ref: string, partId: string): Promise<AttachmentContent | undefined> {
    const uid = parseUid(ref);
    if (uid === undefined || !PART_ID.test(partId)) return undefined;
    const lock = await this.lock(path, 'open the attachment');
    try {
      const content = await openPart(this.deps.client, uid, partId, () => lock.release());
      if (content === undefined) lock.release();
      return content; // the lock is released when the content stream closes
    } catch (err) {
      lock.release();
      throw sessionError(err, 'open the attachment', this.log);
    }
  }

  async watch(path: string, onChange: () => void): Promise<() => Promise<void>> {
    this.assertOpen();
    const watcher = new IdleWatcher({
      path,
      onChange,
      open: this.deps.openWatchConnection,
      log: this.log,
      pollMs: this.deps.watchPollMs,
    });
    try {
      await watcher.start();
    } catch (err) {
      await watcher.stop();
      throw sessionError(err, 'watch the folder', this.log);
    }
    this.watchers.add(watcher);
    return async () => {
      this.watchers.delete(watcher);
      await watcher.stop();
    };
  }

  async move(path: string, refs: readonly string[], toPath: string): Promise<Map<string, Placed>> {
    const client = this.deps.client;
    const uids = uidsOf(refs);
    // A server without UIDPLUS may not say where they land: what finds them is read first (decision 0080).
    let before: BeforeMove | undefined;
    let placed: Map<string, Placed>;
    try {
      placed = await this.inFolder(
        path,
        'move the messages',
        async () => {
          if (!client.capabilities.has('UIDPLUS') && uids.length > 0)
            before = await beforeMove(client, uids, toPath);
          return moveMessages(client, uids, toPath);
        },
        true,
      );
    } catch (e) {
      // The folder they were in was deleted elsewhere, and they with it: none of them is there. (A destination that
      // is gone is a FolderGoneError, decision 0049.)
      if (e instanceof FolderMissingError) return new Map();
      throw e;
    }
    const missing = uids.filter((uid) => !placed.has(String(uid)));
    if (before === undefined || missing.length === 0) return placed;
    const found = before;
    const landed = await this.inFolder(toPath, 'find the moved messages', () =>
      landedAfterMove(client, found, missing),
    );
    for (const [from, at] of landed) placed.set(String(from), at);
    return placed;
  }

  setFlags(
    path: string,
    refs: readonly string[],
    add: readonly string[],
    remove: readonly string[],
  ): Promise<ReadonlySet<string>> {
    return this.inFolder(
      path,
      'change the flags',
      async () => {
        const found = await changeFlags(this.deps.client, uidsOf(refs), add, remove);
        return new Set(refs.filter((ref) => found.has(Number(ref))));
      },
      true,
    );
  }

  async append(
    path: string,
    raw: Uint8Array,
    flags: readonly string[],
    date: Date,
  ): Promise<Placed | undefined> {
    this.assertOpen();
    let placed: Placed | undefined;
    try {
      placed = await appendMessage(this.deps.client, path, raw, flags, date);
    } catch (err) {
      throw sessionError(err, 'save the message', this.log);
    }
    // Without UIDPLUS the server does not say where it landed (APPENDUID): the newest message with its Message-ID
    // there is it — ours carry ids of their own — so a draft's copy can still be replaced and removed (decision 0080).
    if (placed !== undefined) return placed;
    const messageId = messageIdOf(raw);
    if (messageId === undefined) return undefined;
    const uid = (await this.withMessageId(path, messageId, 'find the saved message')).at(-1);
    return uid === undefined ? undefined : { ref: String(uid), position: uid };
  }

  async deleteOwnDraft(path: string, ref: string): Promise<void> {
    const [uid] = uidsOf([ref]);
    if (uid === undefined) return;
    await this.inFolder(
      path,
      'remove the draft',
      async () => {
        await deleteMessages(this.deps.client, [uid]);
      },
      true,
    );
  }

  listLabels(): Promise<string[]> {
    // IMAP keywords exist only on messages (the index knows those in use).
    return Promise.resolve([]);
  }

  makeLabels(): Promise<string[]> {
    // Keywords live on messages: setFlags sets them.
    return Promise.resolve([]);
  }

  removeLabelIfUnused(): Promise<boolean> {
    // A keyword is no entry of a list the person sees: nothing to take away.
    return Promise.resolve(false);
  }

  ownName(): Promise<string | undefined> {
    // IMAP keeps no name for a mailbox: the Sent folder tells it.
    return Promise.resolve(undefined);
  }

  async createFolder(name: string): Promise<void> {
    this.assertOpen();
    try {
      // imapflow answers ALREADYEXISTS (RFC 5530) with created: false, and subscribes to a new folder.
      await this.deps.client.mailboxCreate(await this.personalPath(name));
    } catch (err) {
      throw sessionError(err, 'create the folder', this.log);
    }
  }

  /**
   * Where a new folder goes. With NAMESPACE (RFC 2342) imapflow puts it under the personal prefix itself. A server
   * without it that keeps every folder under INBOX (Courier's `INBOX.Sent`) refuses one made beside INBOX: there it
   * goes under INBOX too, as the others are.
   */
  private async personalPath(name: string): Promise<string> {
    const { client } = this.deps;
    if (client.capabilities.has('NAMESPACE')) return name;
    const folders = (await client.list()).filter((f) => f.path.toUpperCase() !== 'INBOX');
    const delimiter = folders[0]?.delimiter;
    if (delimiter === undefined || delimiter === '') return name;
    const under = `INBOX${delimiter}`;
    return folders.every((f) => f.path.toUpperCase().startsWith(under)) ? `${under}${name}` : name;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.watchers].map((w) => w.stop()));
    this.watchers.clear();
    if (this.deps.recycle !== undefined) {
      this.deps.recycle();
      return;
    }
    try {
      await this.deps.client.logout();
    } catch {
      this.deps.client.close();
    } finally {
      this.deps.release();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new MailProviderError('The mail session is closed.');
  }

  private async lock(path: string, action: string, writable = false): Promise<MailboxLockObject> {
    this.assertOpen();
    try {
      // Reads EXAMINE (no \Recent or \Seen side effects); writes SELECT.
      const lock = await this.deps.client.getMailboxLock(path, { readOnly: !writable });
      const inherited = this.inherited;
      this.inherited = undefined;
      // The lock kept the folder a reused login had open (no EXAMINE): a NOOP brings its view up to date first.
      if (inherited !== undefined && inherited !== false && this.deps.client.mailbox === inherited) {
        await this.deps.client.noop(); // imapflow: false, never a throw, when it fails
        if (!this.deps.client.usable) {
          lock.release();
          throw lostConnection(action);
        }
      }
      return lock;
    } catch (err) {
      throw sessionError(err, action, this.log);
    }
  }

  private async inFolder<T>(
    path: string,
    action: string,
    fn: () => Promise<T>,
    writable = false,
  ): Promise<T> {
    const lock = await this.lock(path, action, writable);
    try {
      const answer = await fn();
      // imapflow answers a command on a connection that closed under it with an empty result, not an error: a message
      // "not found" then was never looked for, and a read that drops rows on a miss would drop real mail.
      if (!this.deps.client.usable) throw lostConnection(action);
      return answer;
    } catch (err) {
      if (err instanceof CallerFailure) throw err.error;
      throw sessionError(err, action, this.log);
    } finally {
      lock.release();
    }
  }
}

/** An error of the caller's callback, on its way out through a command's handling unchanged. */
class CallerFailure extends Error {
  readonly error: unknown;
  constructor(error: unknown) {
    super('the caller failed');
    this.error = error;
  }
}

const lostConnection = (action: string): MailProviderError =>
  new MailProviderError(`Could not ${action}: the connection to the mail server was lost.`);
