import { reaches } from '../auth/inbox-reach.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Serializer } from '../../lib/keyed-mutex.ts';
import { counted, type ChangeCounter } from '../sync/change-counter.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { Principal } from '../auth/principal.ts';
import type { InboxService } from '../inboxes/inbox-service.ts';
import type { InboxWithFolders } from '../inboxes/inbox-store.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import type { LeaseService } from '../leases/lease-service.ts';
import { MailAuthError, MailProviderError, type MailSession, type Placed } from '../mail/mail-ports.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import type { Folder, FolderId } from '../messages/folder.ts';
import type { MessageId, MessageSummary } from '../messages/message.ts';
import type { MessageStore } from '../messages/message-store.ts';
import { applyFlagChange, FLAGGED } from './action-types.ts';
import type { UndoEntry, UndoStore } from './undo-store.ts';

export type NotRestoredReason = 'gone' | 'moved_since' | 'inbox_unavailable' | 'provider_error';

export interface UndoOutcome {
  readonly action: string;
  readonly restored: readonly { readonly inboxId: string; readonly messageId: string }[];
  readonly notRestored: readonly {
    readonly inboxId: string;
    readonly messageId: string;
    readonly reason: NotRestoredReason;
  }[];
  /** Labels the change had made that no message carries any more, taken out of the mailbox's list (decision 0146). */
  readonly labelsRemoved: readonly string[];
}

/** What an undo has put back so far, filled inbox by inbox. */
interface UndoTally {
  readonly restored: UndoOutcome['restored'][number][];
  readonly notRestored: UndoOutcome['notRestored'][number][];
  readonly labelsRemoved: string[];
}

export type UndoError =
  | { readonly code: 'undo_unavailable'; readonly message: string }
  | {
      readonly code: 'lease_held';
      readonly message: string;
      readonly holder: string;
      readonly expiresAt: Date;
    };

export interface UndoServiceDeps {
  readonly inboxes: InboxService;
  readonly messages: MessageStore;
  readonly sessions: MailSessionFactory;
  readonly leases: LeaseService;
  readonly undo: UndoStore;
  readonly clock: Clock;
  /** Actions and undos on one inbox run one at a time — across every node on PostgreSQL (decision 0024). */
  readonly serial: Serializer;
  /** Counts each change made to a mailbox, for the syncs reading it meanwhile (decision 0034). */
  readonly changes: ChangeCounter;
}

/**
 * Reverses one recorded change against the live mailbox (DESIGN.md §4): moves go back where they came from,
 * flag changes are reversed — only the flags the action changed, so what the person did since is kept.
 * A handle works once; what could not be put back is reported per message with a reason.
 */
export class UndoService {
  private readonly deps: UndoServiceDeps;
  constructor(deps: UndoServiceDeps) {
    this.deps = deps;
  }

  async undo(principal: Principal, undoId: string): Promise<Result<UndoOutcome, UndoError>> {
    const unavailable = err({
      code: 'undo_unavailable' as const,
      message: 'This undoId is unknown, was already used, or is older than 7 days.',
    });
    // Look before taking: an agent refused for another's lease must not hold the handle even for a moment, or
    // the lease holder's own undo at that instant would find it taken.
    const seen = /^undo_[a-z0-9]{20}$/.test(undoId)
      ? await this.deps.undo.find(principal.accountId, undoId, this.deps.clock.now())
      : undefined;
    // A change in an inbox the agent may not reach is not its to undo, nor to use up: the handle stays for the agent
    // that made the change and for the person (decision 0142).
    if (seen === undefined || !seen.entries.every((e) => reaches(principal.inboxes, e.inboxId)))
      return unavailable;
    const inboxIds = [...new Set(seen.entries.map((e) => e.inboxId))];
    for (const inboxId of inboxIds) {
      const held = await this.deps.leases.heldByOther(principal, inboxId);
      if (held !== undefined) {
        return err({
          code: 'lease_held',
          message: `“${held.agentLabel}” holds the triage lease on this inbox until ${held.expiresAt.toISOString()}; undo after it ends.`,
          holder: held.agentLabel,
          expiresAt: held.expiresAt,
        });
      }
    }
    // The handle is taken only once the mailbox is put back: taken first, a process killed part-way left the change
    // with no handle left to undo it (found by the crash trials, test/rig/crash-trials.ts). Changes to the inbox run
    // one at a time (`serial`), so two undos of one handle cannot both get here with it unused; putting back what is
    // already back does nothing, so a second try after a crash is harmless.
    return this.deps.serial.run(inboxIds, async () => {
      const record = await this.deps.undo.find(principal.accountId, undoId, this.deps.clock.now());
      if (record === undefined) return unavailable;
      const byInbox = new Map<string, UndoEntry[]>();
      for (const e of record.entries) byInbox.set(e.inboxId, [...(byInbox.get(e.inboxId) ?? []), e]);
      const restored: UndoOutcome['restored'][number][] = [];
      const notRestored: UndoOutcome['notRestored'][number][] = [];
      const labelsRemoved: string[] = [];
      for (const [inboxId, entries] of byInbox) {
        const place = await this.deps.inboxes.usableWithFolders(principal, inboxId);
        if (!place.ok) {
          for (const e of entries)
            notRestored.push({ inboxId, messageId: e.messageId, reason: 'inbox_unavailable' });
          continue;
        }
        await counted(this.deps.changes, [place.value.inbox.id], () =>
          this.undoInInbox(place.value, entries, { restored, notRestored, labelsRemoved }),
        );
      }
      await this.deps.undo.consume(principal.accountId, undoId, this.deps.clock.now());
      return ok({ action: record.action, restored, notRestored, labelsRemoved });
    });
  }

  /**
   * The message as indexed now. A move the index has not caught up with (the process died between the move and
   * recording it, and a sync since indexed the folder it went to afresh) is found there by its Message-ID.
   */
  private async current(inbox: Inbox, entry: UndoEntry): Promise<MessageSummary | undefined> {
    const now = await this.deps.messages.get(inbox.id, entry.messageId as MessageId);
    if (now !== undefined || entry.toFolderId === null || !entry.internetMessageId) return now;
    return this.deps.messages.findByInternetId(entry.toFolderId as FolderId, entry.internetMessageId);
  }

  private async undoInInbox(
    { inbox, folders: listed }: InboxWithFolders,
    entries: readonly UndoEntry[],
    { restored, notRestored, labelsRemoved }: UndoTally,
  ): Promise<void> {
    const folders = new Map(listed.map((f) => [f.id as string, f]));
    const moves = new Map<
      string,
      { from: FolderId; to: FolderId; items: { entry: UndoEntry; now: MessageSummary }[] }
    >();
    const flags: { entry: UndoEntry; now: MessageSummary }[] = [];
    // Moved, but in no folder the index holds: looked for at the provider (below).
    const unindexed: { entry: UndoEntry; from: Folder; to: Folder; internetMessageId: string }[] = [];
    // Back where it was, says the index; asked of the provider, as the index may never have learnt of the move.
    const claimedBack: {
      entry: UndoEntry;
      now: MessageSummary;
      from: Folder;
      to: Folder;
      internetMessageId: string;
    }[] = [];
    for (const entry of entries) {
      const now = await this.current(inbox, entry);
      const from = folders.get(entry.fromFolderId);
      const to = entry.toFolderId === null ? undefined : folders.get(entry.toFolderId);
      if (now === undefined && entry.internetMessageId && from !== undefined && to !== undefined) {
        unindexed.push({ entry, from, to, internetMessageId: entry.internetMessageId });
      } else if (now === undefined) {
        notRestored.push({ inboxId: inbox.id, messageId: entry.messageId, reason: 'gone' });
      } else if (entry.toFolderId === null) {
        flags.push({ entry, now });
      } else if (now.folderId === entry.fromFolderId) {
        // Already back, or moved by a change whose index write never happened (the process killed, or the index's
        // database failing, between the two): then the index still shows it here, and only the provider knows.
        if (entry.internetMessageId && from !== undefined && to !== undefined)
          claimedBack.push({ entry, now, from, to, internetMessageId: entry.internetMessageId });
        else restored.push({ inboxId: inbox.id, messageId: entry.messageId });
      } else if (now.folderId !== entry.toFolderId || !folders.has(entry.fromFolderId)) {
        notRestored.push({ inboxId: inbox.id, messageId: entry.messageId, reason: 'moved_since' });
      } else {
        const key = `${now.folderId}→${entry.fromFolderId}`;
        const group = moves.get(key) ?? { from: now.folderId, to: entry.fromFolderId as FolderId, items: [] };
        group.items.push({ entry, now });
        moves.set(key, group);
      }
    }
    // Labels the change made in the mailbox's own list (decision 0146): looked at even when every message is gone.
    const made = new Set(entries.flatMap((e) => e.flags?.made ?? []));
    if (
      moves.size === 0 &&
      flags.length === 0 &&
      unindexed.length === 0 &&
      claimedBack.length === 0 &&
      made.size === 0
    )
      return;
    let session: MailSession | undefined;
    const pending = new Set(
      [...moves.values()]
        .flatMap((g) => g.items.map((i) => i.entry.messageId))
        .concat(flags.map((f) => f.entry.messageId))
        .concat(unindexed.map((u) => u.entry.messageId))
        .concat(claimedBack.map((c) => c.entry.messageId)),
    );
    try {
      session = await this.deps.sessions.open(inbox);
      for (const group of moves.values()) {
        const from = folders.get(group.from);
        const to = folders.get(group.to);
        if (from === undefined || to === undefined) continue;
        const placed = await session.move(
          from.path,
          group.items.map((i) => i.now.providerRef),
          to.path,
        );
        for (const { entry, now } of group.items) {
          pending.delete(entry.messageId);
          const at = placed.get(now.providerRef);
          if (at === undefined) {
            notRestored.push({ inboxId: inbox.id, messageId: entry.messageId, reason: 'gone' });
            continue;
          }
          await this.deps.messages.relocate(inbox.id, now.id, group.to, at.ref, at.position);
          restored.push({ inboxId: inbox.id, messageId: entry.messageId });
        }
      }
      for (const { entry, now, from, to, internetMessageId } of claimedBack) {
        pending.delete(entry.messageId);
        if ((await session.locate(from.path, internetMessageId)) !== undefined) {
          restored.push({ inboxId: inbox.id, messageId: entry.messageId }); // really back
          continue;
        }
        const at = await moveBackByMessageId(session, to, from, internetMessageId);
        if (at === undefined) {
          notRestored.push({ inboxId: inbox.id, messageId: entry.messageId, reason: 'gone' });
          continue;
        }
        await this.deps.messages.relocate(inbox.id, now.id, from.id, at.ref, at.position);
        restored.push({ inboxId: inbox.id, messageId: entry.messageId });
      }
      // Moved back at the provider only: the next sync of the folder it returns to indexes it again.
      for (const { entry, from, to, internetMessageId } of unindexed) {
        const at = await moveBackByMessageId(session, to, from, internetMessageId);
        pending.delete(entry.messageId);
        if (at === undefined)
          notRestored.push({ inboxId: inbox.id, messageId: entry.messageId, reason: 'gone' });
        else restored.push({ inboxId: inbox.id, messageId: entry.messageId });
      }
      for (const { entry, now } of flags) {
        const folder = folders.get(now.folderId);
        if (folder === undefined) continue;
        const { add, remove } = reversal(entry);
        const found = await session.setFlags(folder.path, [now.providerRef], add, remove);
        pending.delete(entry.messageId);
        // Gone from the mailbox since (decision 0148): nothing was put back.
        if (!found.has(now.providerRef)) {
          notRestored.push({ inboxId: inbox.id, messageId: entry.messageId, reason: 'gone' });
          continue;
        }
        const { labels, starred } = applyFlagChange(now, add, remove);
        await this.deps.messages.updateFlags(inbox.id, now.id, {
          unread: now.unread,
          starred,
          labels: [...labels].sort(),
        });
        restored.push({ inboxId: inbox.id, messageId: entry.messageId });
      }
      for (const name of made) {
        // The messages are back as they were: a label left behind is tidied if it can be, and stays if not.
        const removed = await session.removeLabelIfUnused(name).catch((e: unknown) => {
          if (e instanceof MailProviderError || e instanceof MailAuthError) return false;
          throw e;
        });
        if (removed) labelsRemoved.push(name);
      }
    } catch (e) {
      if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
      for (const messageId of pending)
        notRestored.push({ inboxId: inbox.id, messageId, reason: 'provider_error' });
    } finally {
      await session?.close().catch(() => undefined);
    }
  }
}

/** Finds a message in `to` by its Message-ID and moves it back to `from`: where it landed, or undefined if not found. */
async function moveBackByMessageId(
  session: MailSession,
  to: Folder,
  from: Folder,
  internetMessageId: string,
): Promise<Placed | undefined> {
  const found = await session.locate(to.path, internetMessageId);
  return found === undefined
    ? undefined
    : (await session.move(to.path, [found.ref], from.path)).get(found.ref);
}

/** What to add and remove to reverse a flag change: only what the action actually changed. */
function reversal(entry: UndoEntry): { add: string[]; remove: string[] } {
  const had = new Set([...entry.before.labels, ...(entry.before.starred ? [FLAGGED] : [])]);
  const add: string[] = [];
  const remove: string[] = [];
  for (const f of entry.flags?.add ?? []) if (!had.has(f)) remove.push(f);
  for (const f of entry.flags?.remove ?? []) if (had.has(f)) add.push(f);
  return { add, remove };
}
