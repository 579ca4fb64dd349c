import type { Clock } from '../../lib/clock.ts';
import type { Serializer } from '../../lib/keyed-mutex.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { newId, newTimeOrderedId } from '../../lib/random.ts';
import { InboxGoneError } from '../inboxes/inbox-errors.ts';
import type { Inbox, InboxId } from '../inboxes/inbox.ts';
import { MailAuthError, MailProviderError, type MailSession } from '../mail/mail-ports.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import type { FlagState, FolderChanges, RemoteSummary } from '../mail/mail-types.ts';
import type { Folder, FolderId } from '../messages/folder.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import type { MessageId, MessageSummary } from '../messages/message.ts';
import type { MessageStore } from '../messages/message-store.ts';
import { boundedAddress, boundedListId, boundedThreadId } from '../messages/index-bounds.ts';
import { cleanAddress, cleanText } from '../messages/untrusted-content.ts';
import type { ChangeCounter } from './change-counter.ts';
import { resolveFolders } from './folder-names.ts';

export interface FolderReport {
  readonly folderId: string;
  readonly name: string;
  readonly added: number;
  readonly flagsChanged: number;
  readonly removed: number;
  readonly reset: boolean;
}

export type SyncOutcome =
  | { readonly ok: true; readonly folders: readonly FolderReport[] }
  | {
      readonly ok: false;
      readonly code: 'needs_reconnect' | 'provider_error' | 'unknown_folder';
      readonly message: string;
    };

/**
 * Screens arriving mail by the person's blocklist (implemented by junk screening): a rule checked on each new
 * message of the inbox folder while it is indexed, and the screening itself after the sync, on its own session.
 */
export interface ArrivalScreen {
  /** A test of sender addresses whose new mail is screened; undefined when nothing is blocked. */
  arrivalRule(inbox: Inbox): Promise<((address: string) => boolean) | undefined>;
  screenArrivals(inbox: Inbox, folderId: FolderId, refs: readonly string[]): Promise<void>;
}

export interface SyncServiceDeps {
  readonly folders: FolderStore;
  readonly messages: MessageStore;
  readonly sessions: MailSessionFactory;
  readonly clock: Clock;
  readonly log: Logger;
  readonly windowSize: number;
  /**
   * The serializer actions and undos on an inbox run under: a sync's index writes wait for the one running, so a
   * change the sync read half-way (the message moved at the provider, its row not yet re-pointed) is never applied
   * over it (decision 0033).
   */
  readonly serial: Serializer;
  /**
   * How many changes actions and undos have made to an inbox's mailbox: what a sync read before one is checked
   * again at the provider before it is written (decision 0034).
   */
  readonly changes: ChangeCounter;
  readonly onSynced: (inbox: Inbox, error: string | null) => Promise<void>;
  /** The inbox folder was re-read as a reset (its identity changed): whatever watches it should start over. */
  readonly onInboxFolderReset?: (inbox: Inbox) => void;
  /** Junk screening's blocklist, applied to new mail of the inbox folder. */
  readonly arrivals?: ArrivalScreen;
  readonly metrics?: Metrics;
}

/**
 * Brings the local index of an inbox's selected folders up to date with the provider. Per folder it keeps the
 * cursor (UIDVALIDITY, UIDNEXT, HIGHESTMODSEQ, window low) and asks the provider only for what changed; a
 * UIDVALIDITY change reseeds the folder silently. Syncs of one inbox never overlap in this process; across
 * processes the cursor advances by compare-and-set and applying the same changes twice is harmless.
 */
export class SyncService {
  private readonly deps: SyncServiceDeps;
  private readonly running = new Map<InboxId, Promise<SyncOutcome>>();
  /** The one more run that callers asking during a running sync wait for. */
  private readonly queued = new Map<InboxId, Promise<SyncOutcome>>();

  constructor(deps: SyncServiceDeps) {
    this.deps = deps;
  }

  /**
   * Syncs now. Asked while a sync of the inbox runs, it waits for that one and runs once more: the running sync may
   * have read the mailbox before the change the caller wants to see. Callers asking meanwhile share that one extra
   * run, so a burst of requests costs one sync, not one each.
   */
  sync(inbox: Inbox, opts: { folders?: readonly string[] } = {}): Promise<SyncOutcome> {
    const current = this.running.get(inbox.id);
    if (current === undefined) {
      const run = this.runAndScreen(inbox, opts).finally(() => {
        if (this.running.get(inbox.id) === run) this.running.delete(inbox.id);
      });
      this.running.set(inbox.id, run);
      return run;
    }
    const shared = opts.folders === undefined ? this.queued.get(inbox.id) : undefined;
    if (shared !== undefined) return shared;
    const next: Promise<SyncOutcome> = current
      .catch(() => undefined)
      .then(() => {
        if (this.queued.get(inbox.id) === next) this.queued.delete(inbox.id);
        return this.sync(inbox, opts);
      });
    if (opts.folders === undefined) this.queued.set(inbox.id, next);
    return next;
  }

  /** A sync, then the blocklist on what arrived in the inbox folder; a failed screening never fails the sync. */
  private async runAndScreen(inbox: Inbox, opts: { folders?: readonly string[] }): Promise<SyncOutcome> {
    const caught: Caught[] = [];
    const started = performance.now();
    const outcome = await this.run(inbox, opts, caught);
    this.deps.metrics?.sync(
      inbox.provider,
      outcome.ok ? 'ok' : 'failed',
      (performance.now() - started) / 1000,
      outcome.ok ? outcome.folders.reduce((n, f) => n + f.added, 0) : 0,
    );
    const arrivals = this.deps.arrivals;
    if (arrivals !== undefined)
      for (const { folderId, refs } of caught) {
        if (refs.length === 0) continue;
        await arrivals.screenArrivals(inbox, folderId, refs).catch((e: unknown) => {
          this.deps.log.warn({ inboxId: inbox.id, err: e }, 'screening arrivals failed');
        });
      }
    return outcome;
  }

  private async run(
    inbox: Inbox,
    opts: { folders?: readonly string[] },
    caught: Caught[],
  ): Promise<SyncOutcome> {
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox);
      const folders = await this.deps.folders.replaceAll(
        inbox.id,
        await session.listFolders(),
        () => newId('fld') as FolderId,
      );
      let selected = folders.filter((f) => f.selected);
      if (opts.folders !== undefined) {
        const resolved = resolveFolders(folders, opts.folders);
        if (!resolved.ok) return { ok: false, code: 'unknown_folder', message: resolved.message };
        selected = resolved.folders;
        await this.deps.folders.setSelected(
          inbox.id,
          selected.map((f) => f.id),
        );
      } else if (selected.length === 0) {
        selected = folders.filter((f) => f.canonical === 'inbox');
        await this.deps.folders.setSelected(
          inbox.id,
          selected.map((f) => f.id),
        );
      }
      const reports: FolderReport[] = [];
      for (const folder of selected) {
        const report = await this.syncFolder(session, inbox, folder, caught);
        // A first sync is a reset too; only a folder that had a cursor was re-created under a watcher.
        if (report.reset && folder.canonical === 'inbox' && folder.sync.uidValidity !== null)
          this.deps.onInboxFolderReset?.(inbox);
        reports.push(report);
      }
      // Screened is synced with them, unlisted and unreported: what waits there is what the review of screened mail
      // shows, and the person may empty it from any client. Its first sync keeps the ids screening put there (0046).
      const screened = folders.find((f) => f.canonical === 'screened');
      if (screened !== undefined && !selected.some((f) => f.id === screened.id))
        await this.syncFolder(session, inbox, screened, caught);
      await this.deps.onSynced(inbox, null);
      return { ok: true, folders: reports };
    } catch (e) {
      if (e instanceof InboxGoneError) throw e; // removed while it synced: not a failure of the mailbox (0039)
      // The session marked the inbox for reconnecting (RefusalMarkingSessions).
      if (e instanceof MailAuthError) {
        return {
          ok: false,
          code: 'needs_reconnect',
          message: `The mailbox refused the stored credential: ${e.message}`,
        };
      }
      // Anything else is ours (the database, a defect), not the mailbox's: the caller gets internal_error and the
      // log gets the details, rather than the agent and the inbox's status getting, say, "deadlock detected".
      if (!(e instanceof MailProviderError)) throw e;
      const message = e.message;
      this.deps.log.warn({ inboxId: inbox.id, err: e }, 'sync failed');
      await this.deps.onSynced(inbox, message);
      return {
        ok: false,
        code: 'provider_error',
        message: `The mailbox could not be synced right now: ${message}`,
      };
    } finally {
      await session?.close().catch(() => undefined);
    }
  }

  private async syncFolder(
    session: MailSession,
    inbox: Inbox,
    folder: Folder,
    caught: Caught[],
  ): Promise<FolderReport> {
    const { messages, folders } = this.deps;
    // An action moves a message at the provider and then re-points its row to the copy's folder and ref. A sync that
    // listed the folder between the two would remove the row (the message is gone from here) or index the copy as a
    // new message (it is new there), and the id an agent holds would stop working. Each index write of the sync
    // waits for the action or undo running on the inbox; by then the row is re-pointed, which makes removing the old
    // ref a no-op and indexing the copy an update of the same row (decision 0033).
    const locked = <T>(work: () => Promise<T>): Promise<T> => this.deps.serial.run([inbox.id], work);
    // What the sync read before an action changed the mailbox is stale once the action is done: written as read, it
    // would undo in the index what the action just did (a label it added, a message it moved away). The count of
    // changes, read before the folder and again under the lock, tells (decision 0034).
    const before = await this.deps.changes.read(inbox.id);
    let stale = false;
    const changedSince = async (): Promise<boolean> =>
      (stale ||= (await this.deps.changes.read(inbox.id)) !== before);
    const arrivals = folder.canonical === 'inbox' ? this.deps.arrivals : undefined;
    const blocked: string[] = [];
    if (arrivals !== undefined) caught.push({ folderId: folder.id, refs: blocked });
    const s = folder.sync;
    const cursor =
      s.uidValidity === null || s.uidNext === null || s.windowLow === null
        ? null
        : {
            uidValidity: s.uidValidity,
            uidNext: s.uidNext,
            highestModseq: s.highestModseq,
            windowLow: s.windowLow,
          };
    const known = new Map((await messages.listRefs(folder.id)).map((k) => [k.ref, k.internetMessageId]));
    const knownRefs = [...known.keys()];
    // A reset (a folder's first sync, or a new UIDVALIDITY, which may reuse the old numbers for other messages) reads
    // the window afresh. A row whose ref holds the same message now (the same Message-ID) keeps its id — an action
    // put it there, or the folder was re-created with its mail — and is not new; any other known row goes before the
    // message now under its ref is indexed, and the rows the window did not show go at the end (decision 0046).
    let resetting = false;
    const seen = new Set<string>();
    const noteReset = (reset: boolean) => {
      resetting ||= reset;
    };
    let added = 0;
    // Known already (a window read again keeps its rows): not new mail, and not screened again as if it arrived.
    const same = (m: RemoteSummary) =>
      m.internetMessageId !== null && known.get(m.ref) === m.internetMessageId;
    const index = async (batch: readonly RemoteSummary[]) => {
      if (resetting) {
        const replaced = batch.filter((m) => known.has(m.ref) && !same(m)).map((m) => m.ref);
        if (replaced.length > 0) await messages.removeByRefs(folder.id, replaced);
        for (const m of batch) seen.add(m.ref);
      }
      const fresh = batch.filter((m) => !same(m));
      await messages.upsertMany(batch.map((m) => toSummary(inbox.id, folder.id, m)));
      // The blocklist as it stands when a batch is indexed, read again for each: a sender the person blocks while a
      // long sync runs is screened from the next batch on, not from the next sync (which meets it as known mail).
      const rule = arrivals !== undefined && fresh.length > 0 ? await arrivals.arrivalRule(inbox) : undefined;
      if (rule !== undefined) for (const m of fresh) if (rule(m.from.address)) blocked.push(m.ref);
      added += fresh.length;
    };
    // New messages read after a change are kept until the provider has been asked again, at the end.
    const held: RemoteSummary[] = [];
    // New messages are indexed batch by batch as the provider delivers them, never all held at once.
    const changes = await session.changes(folder.path, cursor, {
      windowSize: this.deps.windowSize,
      knownRefs,
      onAdded: (batch, reset) =>
        locked(async () => {
          noteReset(reset);
          if (await changedSince()) held.push(...batch);
          else await index(batch);
        }),
    });
    const removed = await locked(async () => {
      noteReset(changes.reset);
      const {
        added: kept,
        flags,
        gone,
      } = (await changedSince())
        ? await readAgain(session, folder.path, held, changes)
        : { added: [], flags: changes.flags, gone: changes.removed };
      await index(kept);
      await messages.updateFlagsByRefs(folder.id, flags);
      const away = resetting ? [...gone, ...knownRefs.filter((ref) => !seen.has(ref))] : gone;
      return away.length === 0 ? 0 : messages.removeByRefs(folder.id, away);
    });
    // Keep a window extended by loading older mail: never raise windowLow on an incremental sync.
    const windowLow =
      changes.reset || s.windowLow === null
        ? changes.cursor.windowLow
        : Math.min(s.windowLow, changes.cursor.windowLow);
    await folders.advanceSync(folder.id, s.version, {
      uidValidity: changes.cursor.uidValidity,
      uidNext: changes.cursor.uidNext,
      highestModseq: changes.cursor.highestModseq,
      cursor: null,
      windowLow,
      syncedAt: this.deps.clock.now(),
    });
    return {
      folderId: folder.id,
      name: folder.name,
      added,
      flagsChanged: changes.flags.length,
      removed,
      reset: changes.reset,
    };
  }
}

/**
 * What a sync read of a folder before one of our changes, asked for again (decision 0034) — under the inbox's lock, so
 * no action changes it meanwhile. Present now: written as it is now; absent: it left the folder (an action's row went
 * with it), so new mail is not indexed and known mail is removed.
 */
async function readAgain(
  session: MailSession,
  path: string,
  held: readonly RemoteSummary[],
  read: FolderChanges,
): Promise<{ added: RemoteSummary[]; flags: FlagState[]; gone: string[] }> {
  const known = [...new Set([...read.flags.map((f) => f.ref), ...read.removed])];
  const refs = [...new Set([...held.map((m) => m.ref), ...known])];
  const now = new Map((await session.flagsOf(path, refs)).map((f) => [f.ref, f]));
  return {
    added: stillThere(held, now),
    flags: known.flatMap((ref) => now.get(ref) ?? []),
    gone: known.filter((ref) => !now.has(ref)),
  };
}

/**
 * Of messages read from a folder before one of our changes, those the provider has there still (`now`: their flags,
 * asked for again by ref), with the flags they have now (decision 0034).
 */
export function stillThere(
  read: readonly RemoteSummary[],
  now: ReadonlyMap<string, FlagState>,
): RemoteSummary[] {
  return read.flatMap((m) => {
    const f = now.get(m.ref);
    return f === undefined ? [] : [{ ...m, ...f }];
  });
}

/** New messages of one folder that the blocklist caught while they were indexed. */
interface Caught {
  readonly folderId: FolderId;
  readonly refs: string[];
}

/**
 * A provider summary as the index stores it; display strings are cleaned of invisible characters, and what rows are
 * looked up by is kept to a bounded length (index-bounds.ts).
 */
export function toSummary(inboxId: InboxId, folderId: FolderId, m: RemoteSummary): MessageSummary {
  return {
    id: newTimeOrderedId('msg') as MessageId,
    inboxId,
    folderId,
    providerRef: m.ref,
    position: m.position,
    threadId: boundedThreadId(m.threadId),
    internetMessageId: m.internetMessageId,
    subject: cleanText(m.subject),
    from: { address: boundedAddress(cleanAddress(m.from.address)), name: cleanText(m.from.name) },
    to: m.to.map((a) => ({ address: boundedAddress(cleanAddress(a.address)), name: cleanText(a.name) })),
    snippet: cleanText(m.snippet),
    date: m.date,
    unread: m.unread,
    starred: m.starred,
    labels: m.labels,
    hasAttachments: m.hasAttachments,
    size: m.size,
    listId: boundedListId(m.listId === null ? null : cleanAddress(m.listId)),
    listUnsubscribe: m.listUnsubscribe,
    listUnsubscribePost: m.listUnsubscribePost,
  };
}
