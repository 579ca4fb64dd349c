import type { Clock } from '../../lib/clock.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import { MailAuthError, type ChangeOptions, type MailSession, type Placed } from './mail-ports.ts';
import type { MailSessionFactory } from './mail-session-factory.ts';
import type {
  AttachmentContent,
  FlagState,
  FolderChanges,
  FullMessage,
  RemoteFolder,
  RemoteSummary,
  SearchHit,
  SyncCursor,
} from './mail-types.ts';

/** Marks an inbox for reconnecting unless its credential was replaced after `since` (decision 0038). */
export type MarkNeedsReconnect = (inbox: Inbox, reason: string, since: Date) => Promise<void>;

/**
 * The session factory the services use: a credential the provider refuses marks its inbox for reconnecting, whatever
 * the operation (reading, syncing, acting, undoing, a draft, screening, an unsubscribe check, a watcher) — decided
 * here, where sessions are opened, not by each caller. The mark names the moment the session began, before its
 * credential was read, so a refusal of a credential the person has replaced since does not undo their reconnection
 * (decision 0038). The refusal (`MailAuthError`) is thrown on, for the caller to answer in its own words.
 */
export class RefusalMarkingSessions implements MailSessionFactory {
  private readonly inner: MailSessionFactory;
  private readonly deps: { readonly clock: Clock; readonly mark: MarkNeedsReconnect };

  constructor(inner: MailSessionFactory, deps: { clock: Clock; mark: MarkNeedsReconnect }) {
    this.inner = inner;
    this.deps = deps;
  }

  async open(inbox: Inbox): Promise<MailSession> {
    const since = this.deps.clock.now();
    const guard = <T>(work: () => Promise<T>) => this.marking(inbox, since, work);
    return new MarkingSession(await guard(() => this.inner.open(inbox)), guard);
  }

  definesLabels(inbox: Inbox): boolean {
    return this.inner.definesLabels(inbox);
  }

  watchInbox(inbox: Inbox, onChange: () => void): Promise<() => Promise<void>> {
    return this.marking(inbox, this.deps.clock.now(), () => this.inner.watchInbox(inbox, onChange));
  }

  private async marking<T>(inbox: Inbox, since: Date, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (e instanceof MailAuthError) await this.deps.mark(inbox, e.message, since);
      throw e;
    }
  }
}

/** A session whose every call goes through the guard (a refused credential can surface on any call: an expired token). */
class MarkingSession implements MailSession {
  private readonly s: MailSession;
  private readonly guard: <T>(work: () => Promise<T>) => Promise<T>;

  constructor(s: MailSession, guard: <T>(work: () => Promise<T>) => Promise<T>) {
    this.s = s;
    this.guard = guard;
  }

  listFolders(): Promise<RemoteFolder[]> {
    return this.guard(() => this.s.listFolders());
  }
  fetchOlder(path: string, below: number, count: number): Promise<RemoteSummary[]> {
    return this.guard(() => this.s.fetchOlder(path, below, count));
  }
  fetchMessage(path: string, ref: string): Promise<FullMessage | undefined> {
    return this.guard(() => this.s.fetchMessage(path, ref));
  }
  fetchRaw(path: string, ref: string): Promise<Uint8Array | undefined> {
    return this.guard(() => this.s.fetchRaw(path, ref));
  }
  listLabels(): Promise<string[]> {
    return this.guard(() => this.s.listLabels());
  }
  locate(path: string, internetMessageId: string): Promise<Placed | undefined> {
    return this.guard(() => this.s.locate(path, internetMessageId));
  }
  changes(path: string, cursor: SyncCursor | null, opts: ChangeOptions): Promise<FolderChanges> {
    return this.guard(() => this.s.changes(path, cursor, opts));
  }
  flagsOf(path: string, refs: readonly string[]): Promise<FlagState[]> {
    return this.guard(() => this.s.flagsOf(path, refs));
  }
  watch(path: string, onChange: () => void): Promise<() => Promise<void>> {
    return this.guard(() => this.s.watch(path, onChange));
  }
  search(query: string, paths: readonly string[], limit: number): Promise<SearchHit[]> {
    return this.guard(() => this.s.search(query, paths, limit));
  }
  openAttachment(path: string, ref: string, partId: string): Promise<AttachmentContent | undefined> {
    return this.guard(() => this.s.openAttachment(path, ref, partId));
  }
  move(path: string, refs: readonly string[], toPath: string): Promise<Map<string, Placed>> {
    return this.guard(() => this.s.move(path, refs, toPath));
  }
  setFlags(
    path: string,
    refs: readonly string[],
    add: readonly string[],
    remove: readonly string[],
  ): Promise<void> {
    return this.guard(() => this.s.setFlags(path, refs, add, remove));
  }
  append(path: string, raw: Uint8Array, flags: readonly string[], date: Date): Promise<Placed | undefined> {
    return this.guard(() => this.s.append(path, raw, flags, date));
  }
  deleteOwnDraft(path: string, ref: string): Promise<void> {
    return this.guard(() => this.s.deleteOwnDraft(path, ref));
  }
  createFolder(name: string): Promise<void> {
    return this.guard(() => this.s.createFolder(name));
  }
  close(): Promise<void> {
    return this.s.close();
  }
}
