import { InboxGoneError } from '../core/inboxes/inbox-errors.ts';
import type { Inbox, InboxId } from '../core/inboxes/inbox.ts';
import type { InboxClaims } from '../core/jobs/inbox-claims.ts';
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
  /** One of those by id (undefined once it is paused, disconnected or removed). */
  readonly syncableInbox: (id: InboxId) => Promise<Inbox | undefined>;
  /** Which node watches which inbox. */
  readonly claims: InboxClaims;
  readonly intervalMs: number;
  /** How often this node looks at its share of watchers (claims lapsed, nodes come and gone). */
  readonly reconcileMs?: number;
  readonly log: Logger;
}

const SYNC = 'sync';
const TICK = 'sync-tick';

/**
 * Keeps connected inboxes fresh (decision 0024). Syncs are queue jobs keyed by inbox, so one inbox never syncs on two
 * nodes at once and any node may run one: a periodic tick (one node per interval) asks for every inbox, and each
 * inbox's watcher (IMAP IDLE on the inbox folder, or a provider's poll) asks when new mail arrives. Each connected
 * inbox has one watcher in the cluster: every node claims its fair share — the inboxes divided by the nodes present,
 * rounded up — hands back what is beyond it, and takes over what a departed node held, every few seconds.
 */
export class SyncScheduler {
  private readonly deps: SyncSchedulerDeps;
  private readonly watchers = new Map<InboxId, Promise<(() => Promise<void>) | undefined>>();
  /** What each watcher logs in with and where (`loginOf`), as its inbox was when it started. */
  private readonly startedWith = new Map<InboxId, string>();
  private timer: NodeJS.Timeout | undefined;
  private reconciling: Promise<void> | undefined;
  private reconcileAgain = false;
  private stopped = false;

  constructor(deps: SyncSchedulerDeps) {
    this.deps = deps;
    // Claims lost with the session: stop watching at once (another node may claim these inboxes on its next pass),
    // then claim again through a new session.
    deps.claims.onLost(() => {
      void this.stopAll(false).then(() => this.reconcile());
    });
  }

  /** Registers the sync jobs with the queue (every node works them, background sync on or not). */
  register(): void {
    this.deps.queue.handle(SYNC, async (id) => {
      const inbox = await this.deps.syncableInbox(id as InboxId);
      // Removed while it synced: nothing is left to keep fresh (decision 0039).
      if (inbox !== undefined)
        await this.deps.sync.sync(inbox).catch((e: unknown) => {
          if (!(e instanceof InboxGoneError)) throw e;
        });
    });
    this.deps.queue.handle(TICK, () => this.tick());
  }

  /** Background sync from now on: the periodic tick, a first round soon, and this node's share of watchers. */
  start(): void {
    this.deps.queue.every(TICK, this.deps.intervalMs);
    void this.deps.queue.enqueue(TICK, TICK, 1000);
    this.timer = setInterval(() => {
      void this.reconcile();
    }, this.deps.reconcileMs ?? 5000);
    this.timer.unref();
    void this.reconcile();
  }

  /** Sync one inbox soon (after connecting, or when its watcher saw new mail). */
  syncSoon(inbox: Inbox, delayMs = 0): void {
    void this.deps.queue.enqueue(SYNC, inbox.id, delayMs);
  }

  /** Asks for a sync of every inbox that should be fresh. */
  async tick(): Promise<void> {
    for (const inbox of await this.deps.syncable()) this.syncSoon(inbox);
  }

  /**
   * One pass of this node's watchers against the inboxes and the nodes present. Passes never overlap; asked during
   * one, another follows it (so an inbox connected meanwhile is seen at once).
   */
  reconcile(): Promise<void> {
    if (this.reconciling !== undefined) {
      this.reconcileAgain = true;
      return this.reconciling;
    }
    this.reconciling = (async () => {
      do {
        this.reconcileAgain = false;
        await this.reconcileOnce().catch((e: unknown) => {
          this.deps.log.warn({ err: e instanceof Error ? e.message : 'unknown' }, 'watcher reconcile failed');
        });
      } while (this.askedAgain() && !this.isStopped());
    })().finally(() => {
      this.reconciling = undefined;
    });
    return this.reconciling;
  }

  private async reconcileOnce(): Promise<void> {
    if (this.stopped) return;
    const { claims } = this.deps;
    const inboxes = (await this.deps.syncable()).filter((i) => !i.isDemo);
    const live = new Map(inboxes.map((i) => [i.id, i]));
    for (const id of [...this.watchers.keys()]) if (!live.has(id)) await this.unwatch(id, true);
    // The person gave an inbox a new password or sign-in, or new servers, on any node: its watcher still logs in with
    // the old (a new login after a dropped connection is refused, and the watch ends in silence) — it starts again.
    for (const [id, login] of this.startedWith) {
      const now = live.get(id);
      if (now !== undefined && loginOf(now) !== login) this.rewatch(now);
    }
    const share = Math.ceil(live.size / (await claims.nodes()));
    for (const id of [...this.watchers.keys()].slice(share)) await this.unwatch(id, true);
    // Start at a different place on each node, so that nodes claiming at once mostly try different inboxes.
    const order = [...live.values()];
    const offset = order.length === 0 ? 0 : Math.floor(Math.random() * order.length);
    for (const inbox of [...order.slice(offset), ...order.slice(0, offset)]) {
      if (this.watchers.size >= share || this.isStopped()) break;
      if (this.watchers.has(inbox.id)) continue;
      if (await claims.claim(inbox.id)) this.watchers.set(inbox.id, this.watch(inbox));
    }
  }

  /**
   * A fresh watcher for an inbox whose inbox folder was just re-read as a reset (a new UIDVALIDITY: the folder was
   * re-created, so an IDLE session on the old one hears nothing; an expired Gmail history), or that has a new
   * credential or servers. Its claim is kept.
   */
  rewatch(inbox: Inbox): void {
    const old = this.watchers.get(inbox.id);
    if (old === undefined || inbox.isDemo) return;
    // Marked now, not when the old watcher has stopped: the next pass must not start it again meanwhile.
    this.startedWith.set(inbox.id, loginOf(inbox));
    this.watchers.set(
      inbox.id,
      old
        .then((stop) => stop?.())
        .catch(() => undefined)
        .then(() => this.watch(inbox)),
    );
  }

  /** A just-connected inbox: a first sync now, and a watcher from now on rather than from the next pass. */
  connected(inbox: Inbox): void {
    this.syncSoon(inbox);
    void this.reconcile();
  }

  /** How many inboxes have a live watcher on this node (for operators' metrics and the benchmarks). */
  async watching(): Promise<number> {
    const states = await Promise.all(this.watchers.values());
    return states.filter((s) => s !== undefined).length;
  }

  /** Stops this node's watchers and hands their inboxes back, so other nodes take them over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.reconciling;
    await this.stopAll(true);
    await this.deps.claims.close();
  }

  private async stopAll(release: boolean): Promise<void> {
    for (const id of [...this.watchers.keys()]) await this.unwatch(id, release);
  }

  // Read through methods: these flags change while a pass awaits, which TypeScript's narrowing cannot see.
  private askedAgain(): boolean {
    return this.reconcileAgain;
  }

  private isStopped(): boolean {
    return this.stopped;
  }

  /** The watcher stops before the claim goes: never two watchers for one inbox. */
  private async unwatch(id: InboxId, release: boolean): Promise<void> {
    const watcher = this.watchers.get(id);
    this.watchers.delete(id);
    this.startedWith.delete(id);
    await (await watcher)?.().catch(() => undefined);
    if (release) await this.deps.claims.release(id);
  }

  private async watch(inbox: Inbox): Promise<(() => Promise<void>) | undefined> {
    this.startedWith.set(inbox.id, loginOf(inbox));
    try {
      // Debounced: a burst of EXISTS/FLAGS notifications becomes one sync.
      const stop = await this.deps.sessions.watchInbox(inbox, () => {
        this.syncSoon(inbox, 250);
      });
      // A watcher hears only what happens from now on. Until now nobody on this node watched the inbox: it was
      // just connected, or taken over from a node that stopped, died or lost its claims. Mail that arrived in
      // between is found by one sync, started once the watch is up so that nothing falls between the two.
      this.syncSoon(inbox);
      return stop;
    } catch (e) {
      this.deps.log.warn({ inboxId: inbox.id, err: e }, 'could not watch inbox');
      // Hand the inbox back; the next pass (here or on another node) tries again.
      this.watchers.delete(inbox.id);
      this.startedWith.delete(inbox.id);
      await this.deps.claims.release(inbox.id);
      return undefined;
    }
  }
}

/**
 * What a watcher logs in with and where: the servers, and when the person last gave the credential. Either changed,
 * a watcher started before is stale.
 */
function loginOf(inbox: Inbox): string {
  return [inbox.imapHost, inbox.imapPort, inbox.credentialSetAt?.getTime()]
    .map((v) => String(v ?? ''))
    .join('|');
}
