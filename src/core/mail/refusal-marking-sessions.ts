import type { Clock } from '../../lib/clock.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import { MailAuthError, type MailSession } from './mail-ports.ts';
import type { MailSessionFactory } from './mail-session-factory.ts';

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

  listFolders(...a: Parameters<MailSession['listFolders']>): ReturnType<MailSession['listFolders']> {
    return this.guard(() => this.s.listFolders(...a));
  }
  fetchOlder(...a: Parameters<MailSession['fetchOlder']>): ReturnType<MailSession['fetchOlder']> {
    return this.guard(() => this.s.fetchOlder(...a));
  }
  fetchMessage(...a: Parameters<MailSession['fetchMessage']>): ReturnType<MailSession['fetchMessage']> {
    return this.guard(() => this.s.fetchMessage(...a));
  }
  fetchRaw(...a: Parameters<MailSession['fetchRaw']>): ReturnType<MailSession['fetchRaw']> {
    return this.guard(() => this.s.fetchRaw(...a));
  }
  listLabels(...a: Parameters<MailSession['listLabels']>): ReturnType<MailSession['listLabels']> {
    return this.guard(() => this.s.listLabels(...a));
  }
  ownName(): ReturnType<MailSession['ownName']> {
    return this.guard(() => this.s.ownName());
  }
  locate(...a: Parameters<MailSession['locate']>): ReturnType<MailSession['locate']> {
    return this.guard(() => this.s.locate(...a));
  }
  changes(...a: Parameters<MailSession['changes']>): ReturnType<MailSession['changes']> {
    return this.guard(() => this.s.changes(...a));
  }
  flagsOf(...a: Parameters<MailSession['flagsOf']>): ReturnType<MailSession['flagsOf']> {
    return this.guard(() => this.s.flagsOf(...a));
  }
  watch(...a: Parameters<MailSession['watch']>): ReturnType<MailSession['watch']> {
    return this.guard(() => this.s.watch(...a));
  }
  search(...a: Parameters<MailSession['search']>): ReturnType<MailSession['search']> {
    return this.guard(() => this.s.search(...a));
  }
  openAttachment(...a: Parameters<MailSession['openAttachment']>): ReturnType<MailSession['openAttachment']> {
    return this.guard(() => this.s.openAttachment(...a));
  }
  move(...a: Parameters<MailSession['move']>): ReturnType<MailSession['move']> {
    return this.guard(() => this.s.move(...a));
  }
  setFlags(...a: Parameters<MailSession['setFlags']>): ReturnType<MailSession['setFlags']> {
    return this.guard(() => this.s.setFlags(...a));
  }
  append(...a: Parameters<MailSession['append']>): ReturnType<MailSession['append']> {
    return this.guard(() => this.s.append(...a));
  }
  deleteOwnDraft(...a: Parameters<MailSession['deleteOwnDraft']>): ReturnType<MailSession['deleteOwnDraft']> {
    return this.guard(() => this.s.deleteOwnDraft(...a));
  }
  createFolder(...a: Parameters<MailSession['createFolder']>): ReturnType<MailSession['createFolder']> {
    return this.guard(() => this.s.createFolder(...a));
  }
  makeLabels(...a: Parameters<MailSession['makeLabels']>): ReturnType<MailSession['makeLabels']> {
    return this.guard(() => this.s.makeLabels(...a));
  }
  removeLabelIfUnused(
    ...a: Parameters<MailSession['removeLabelIfUnused']>
  ): ReturnType<MailSession['removeLabelIfUnused']> {
    return this.guard(() => this.s.removeLabelIfUnused(...a));
  }
  close(): Promise<void> {
    return this.s.close();
  }
}
