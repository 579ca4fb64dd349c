import type { Inbox, InboxId } from '../core/inboxes/inbox.ts';
import type { JobQueue } from '../core/jobs/job-queue.ts';
import type { MailSessionFactory } from '../core/mail/mail-session-factory.ts';
import type { SyncService } from '../core/sync/sync-service.ts';
import type { Logger } from '../lib/logger.ts';

export interface SyncSchedulerDeps {
  readonly queue: JobQueue;
  readonly sync: SyncService;
  readonly sessions: MailSessionFactory;
  /** Every inbox that should be kept in sync now (connected, not paused), across accounts. */
  readonly syncable: () => Promise<Inbox[]>;
  readonly intervalMs: number;
  readonly log: Logger;
}

/**
 * Keeps connected inboxes fresh: a periodic sync of each, and for each a watcher (IMAP IDLE on the inbox folder)
 * that turns new mail into a sync within a moment. Watchers are reconciled on every tick, so paused, removed or
 * disconnected inboxes lose theirs and newly connected ones gain one.
 */
export class SyncScheduler {
  private readonly deps: SyncSchedulerDeps;
  private readonly watchers = new Map<InboxId, Promise<(() => Promise<void>) | undefined>>();

  constructor(deps: SyncSchedulerDeps) {
    this.deps = deps;
  }

  start(): void {
    this.deps.queue.every('sync-tick', this.deps.intervalMs, () => this.tick());
    this.deps.queue.enqueue('sync-tick', () => this.tick(), 1000);
  }

  /** Sync one inbox soon (after connecting, or when its watcher saw new mail). */
  syncSoon(inbox: Inbox, delayMs = 0): void {
    this.deps.queue.enqueue(
      `sync:${inbox.id}`,
      async () => {
        await this.deps.sync.sync(inbox);
      },
      delayMs,
    );
  }

  async tick(): Promise<void> {
    const inboxes = await this.deps.syncable();
    const live = new Set(inboxes.map((i) => i.id));
    for (const [id, watcher] of this.watchers) {
      if (!live.has(id)) {
        this.watchers.delete(id);
        await (await watcher)?.().catch(() => undefined);
      }
    }
    for (const inbox of inboxes) {
      this.syncSoon(inbox);
      this.ensureWatching(inbox);
    }
  }

  /**
   * A fresh watcher for an inbox whose inbox folder was just re-read as a reset (a new UIDVALIDITY: the folder was
   * re-created, so an IDLE session on the old one hears nothing; an expired Gmail history).
   */
  rewatch(inbox: Inbox): void {
    const old = this.watchers.get(inbox.id);
    if (old === undefined || inbox.isDemo) return;
    this.watchers.delete(inbox.id);
    void old.then((stop) => stop?.()).catch(() => undefined);
    this.ensureWatching(inbox);
  }

  /** A just-connected inbox: a first sync now, and a watcher from now on rather than from the next tick. */
  connected(inbox: Inbox): void {
    this.syncSoon(inbox);
    this.ensureWatching(inbox);
  }

  private ensureWatching(inbox: Inbox): void {
    if (!inbox.isDemo && !this.watchers.has(inbox.id)) this.watchers.set(inbox.id, this.watch(inbox));
  }

  /** How many inboxes have a live watcher (for operators' metrics and the memory benchmark). */
  async watching(): Promise<number> {
    const states = await Promise.all(this.watchers.values());
    return states.filter((s) => s !== undefined).length;
  }

  async stop(): Promise<void> {
    const stops = [...this.watchers.values()];
    this.watchers.clear();
    for (const s of stops) await (await s)?.().catch(() => undefined);
  }

  private async watch(inbox: Inbox): Promise<(() => Promise<void>) | undefined> {
    try {
      // Debounced: a burst of EXISTS/FLAGS notifications becomes one sync.
      return await this.deps.sessions.watchInbox(inbox, () => {
        this.syncSoon(inbox, 250);
      });
    } catch (e) {
      this.deps.log.warn({ inboxId: inbox.id, err: e }, 'could not watch inbox');
      this.watchers.delete(inbox.id);
      return undefined;
    }
  }
}
