import type { Clock } from '../../lib/clock.ts';
import type { Serializer } from '../../lib/keyed-mutex.ts';
import { counted, type ChangeCounter } from '../sync/change-counter.ts';
import { newId } from '../../lib/random.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';
import type { Principal } from '../auth/principal.ts';
import type { InboxService } from '../inboxes/inbox-service.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import type { LeaseService } from '../leases/lease-service.ts';
import {
  MailAuthError,
  FolderGoneError,
  MailProviderError,
  PartialChangeError,
  type MailSession,
  type Placed,
} from '../mail/mail-ports.ts';
import { foldersWithRole } from '../mail/folder-with-role.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import type { CanonicalFolder, Folder, FolderId } from '../messages/folder.ts';
import { parseMessageId, type MessageSummary } from '../messages/message.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import type { MessageStore } from '../messages/message-store.ts';
import type { VipService } from '../vips/vip-service.ts';
import {
  applyFlagChange,
  FLAGGED,
  MOVES,
  PROTECTED_MOVES,
  type ActError,
  type ActionKind,
  type ActOutcome,
  type Target,
} from './action-types.ts';
import { wholeAccount, type Reach } from '../auth/inbox-reach.ts';
import type { RateDecision, RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';
import type { UndoEntry, UndoStore } from './undo-store.ts';

/** Who changes mail: an agent, or the service itself applying the person's own rules (the blocklist on sync). */
export type Actor = Principal | { readonly service: 'sync'; readonly accountId: AccountId };

/** One change: an action on named messages, or on every message from one sender still in the inbox. */
export interface ActStep {
  readonly action: ActionKind;
  readonly targets:
    | { readonly items: readonly Target[] }
    | { readonly sender: { readonly inboxId: string; readonly address: string } };
  readonly labels?: readonly string[];
  /**
   * Only messages still in the folder of this role when the change runs; the others are skipped as not found.
   * Junk screening's rescue and report move a message out of Screened: checked before the inbox's lock, two of them
   * at once (or a rescue after an agent's move) would both pass and the later one move it on from where the first
   * put it.
   */
  readonly onlyFrom?: CanonicalFolder;
  /**
   * Messages whose From the person's own provider found forged (DMARC failed): the VIP rule protects mail from a
   * VIP, which these are not. Junk screening's verdicts only (decision 0101).
   */
  readonly forgedFrom?: ReadonlySet<string>;
}

export interface ActRequest extends ActStep {
  readonly principal: Actor;
  /** The person confirmed, for this one message, acting on it although its sender is a VIP. */
  readonly confirmedForVip: boolean;
}

export interface ActionServiceDeps {
  readonly inboxes: InboxService;
  readonly messages: MessageStore;
  readonly sessions: MailSessionFactory;
  readonly leases: LeaseService;
  readonly vips: VipService;
  readonly undo: UndoStore;
  readonly clock: Clock;
  /** Actions and undos on one inbox run one at a time — across every node on PostgreSQL (decision 0024). */
  readonly serial: Serializer;
  /** Counts each change made to a mailbox, for the syncs reading it meanwhile (decision 0034). */
  readonly changes: ChangeCounter;
  /** Where a folder list read again is kept (an Archive folder made on a first archive). */
  readonly folders: FolderStore;
  /** Counts each inbox's new labels, on every node alike. */
  readonly limiter: RateLimiter;
  /**
   * Labels an inbox gains a day (decision 0146): a label the mailbox lacks is made on first use, and an agent caught
   * in a loop could otherwise fill the person's label list — Gmail takes 10,000 at most, some IMAP servers a
   * hundred-odd keywords a folder, past which the person's own client can make no more.
   */
  readonly newLabelsPerDay: number;
}

/** The folder made on a first archive in a mailbox that has none, as Thunderbird and Apple Mail do (decision 0076). */
export const ARCHIVE_FOLDER_NAME = 'Archive';

/** One inbox's share of an action: the inbox, its folder list (read once per act), and the messages to change. */
interface InboxGroup {
  readonly inbox: Inbox;
  readonly folders: readonly Folder[];
  readonly messages: MessageSummary[];
}

interface Resolution {
  readonly inboxes: InboxGroup[];
  readonly missing: (Target & { reason: 'not_found' })[];
  readonly count: number;
  /** Sender-wide: the limit cut the list short. */
  readonly more?: boolean;
}

const UNDO_TTL_MS = 7 * 86_400_000;
const SENDER_LIMIT = 500;

/**
 * Every change to mail goes through here, for every tool: trash, spam and archive are moves (never a permanent
 * delete), star and labels are flags. Each call checks the inbox, the lease and the VIP rules first, changes the
 * mailbox, keeps message ids across moves, and records an undo handle.
 */
export class ActionService {
  private readonly deps: ActionServiceDeps;
  constructor(deps: ActionServiceDeps) {
    this.deps = deps;
  }

  /** The inbox's count of new labels today (decision 0146). */
  private labelsRule(): RateRule {
    return { name: 'labels-per-inbox', points: this.deps.newLabelsPerDay, windowSeconds: 86_400 };
  }

  /** Forgets a removed inbox's count of new labels: nothing that names it outlives it (decision 0117). */
  forgetInbox(inboxId: string): Promise<void> {
    return this.deps.limiter.reset(this.labelsRule(), inboxId);
  }

  async act(req: ActRequest): Promise<Result<ActOutcome, ActError>> {
    return this.actMany(req.principal, [req], req.action, req.confirmedForVip);
  }

  /**
   * Several changes as one: every check of every step first, then the changes, under one undo handle named
   * `undoAction` (junk screening moves some messages and marks others in one call).
   */
  async actMany(
    actor: Actor,
    steps: readonly ActStep[],
    undoAction: string,
    confirmedForVip = false,
  ): Promise<Result<ActOutcome, ActError>> {
    const inboxIds = steps.flatMap((s) =>
      'sender' in s.targets ? [s.targets.sender.inboxId] : s.targets.items.map((t) => t.inboxId),
    );
    return this.deps.serial.run(inboxIds, async () => {
      const planned: { step: ActStep; plans: InboxGroup[] }[] = [];
      const skipped: ActOutcome['skipped'][number][] = [];
      let withoutLease = false;
      let more = false;
      // Every check for every step and inbox first, so a refusal never leaves a half-done change behind.
      for (const step of steps) {
        const checked = await this.check(actor, step, confirmedForVip, skipped);
        if (!checked.ok) return checked;
        planned.push({ step, plans: checked.value.plans });
        withoutLease ||= checked.value.withoutLease;
        more ||= checked.value.more;
      }
      // The handle is written before the mailbox changes, with every change planned, and trimmed to what was done
      // afterwards: a process killed between a change and its record left a change no handle could put back (found
      // by the crash trials, test/rig/crash-trials.ts). Putting back a change that never happened does nothing.
      const intent = planned.flatMap(({ step, plans }) => plans.flatMap((plan) => intended(plan, step)));
      const written = intent.length > 0 ? await this.saveUndo(actor, undoAction, intent) : null;
      const changed: ActOutcome['changed'][number][] = [];
      const undo: UndoEntry[] = [];
      const touched = planned.flatMap(({ plans }) => plans.map((plan) => plan.inbox.id));
      return counted(this.deps.changes, touched, async () => {
        for (const { step, plans } of planned) {
          for (const plan of plans) {
            const done = await this.apply(plan, step, skipped);
            changed.push(...done.changed);
            undo.push(...done.undo);
            if (done.fault !== undefined) {
              // Not the mailbox's refusal: ours (the index's database). The handle keeps what was changed if it can
              // be trimmed, else it still holds every planned change; the person finds it under Activity.
              await this.settleUndo(actor, written, intent, undo).catch(() => undefined);
              throw done.fault;
            }
            if (done.error !== undefined) {
              // Whatever was changed before the failure stays undoable, and the error says so.
              const undoId = await this.settleUndo(actor, written, intent, undo);
              return err({ ...done.error, partial: { changed, undoId } });
            }
          }
        }
        const undoId = await this.settleUndo(actor, written, intent, undo);
        return ok({ changed, skipped, undoId, withoutLease, more });
      });
    });
  }

  /** Resolves one step's messages and checks the lease, the folder and the VIP rule; changes nothing. */
  private async check(
    actor: Actor,
    req: ActStep,
    confirmedForVip: boolean,
    skipped: ActOutcome['skipped'][number][],
  ): Promise<Result<{ plans: InboxGroup[]; withoutLease: boolean; more: boolean }, ActError>> {
    // The sync service applies the person's own rules to every inbox; an agent reaches what it was allowed (0142).
    const groups = await this.resolve('service' in actor ? wholeAccount(actor.accountId) : actor, req);
    if (!groups.ok) return groups;
    skipped.push(...groups.value.missing);
    const bulk = groups.value.count > 1 || 'sender' in req.targets;
    const plans: InboxGroup[] = [];
    let withoutLease = false;
    for (const { inbox, folders: indexed, messages } of groups.value.inboxes) {
      const { mine, other: held } =
        'service' in actor
          ? { mine: true, other: undefined }
          : await this.deps.leases.standing(actor, inbox.id);
      if (!mine) withoutLease = true;
      if (held !== undefined) {
        return err({
          code: 'lease_held',
          message: `“${held.agentLabel}” holds the triage lease on this inbox until ${held.expiresAt.toISOString()}; wait or ask the person.`,
          holder: held.agentLabel,
          expiresAt: held.expiresAt,
        });
      }
      const canonical = MOVES[req.action];
      let folders = indexed;
      if (canonical === 'archive' && !folders.some((f) => f.canonical === 'archive')) {
        const made = await this.archiveFolder(inbox);
        if (!made.ok) return made;
        folders = made.value;
      }
      if (canonical !== undefined && !folders.some((f) => f.canonical === canonical)) {
        return err({
          code: 'not_supported',
          message: `This mailbox has no ${canonical} folder, so ${req.action} is not possible here.`,
        });
      }
      let allowed = messages;
      if (req.onlyFrom !== undefined) {
        const from = folders.find((f) => f.canonical === req.onlyFrom)?.id;
        allowed = [];
        for (const m of messages)
          if (m.folderId === from) allowed.push(m);
          else skipped.push({ inboxId: inbox.id, messageId: m.id, reason: 'not_found' });
      }
      if (PROTECTED_MOVES.has(req.action)) {
        const isVip = await this.deps.vips.matcher(inbox.accountId, inbox.id);
        const candidates = allowed;
        allowed = [];
        for (const m of candidates) {
          if (!isVip(m.from.address) || req.forgedFrom?.has(m.id) === true) allowed.push(m);
          else if (!bulk && confirmedForVip) allowed.push(m);
          else if (!bulk)
            return err({
              code: 'vip_confirmation_required',
              message: 'The sender is a VIP: the person must confirm this message specifically.',
              from: m.from.address,
            });
          else skipped.push({ inboxId: inbox.id, messageId: m.id, reason: 'vip', from: m.from.address });
        }
      }
      if (allowed.length > 0) plans.push({ inbox, folders, messages: allowed });
    }
    return ok({ plans, withoutLease, more: groups.value.more === true });
  }

  /**
   * A mailbox with no archive folder (many IMAP servers make only Sent, Drafts, Trash and Junk) gets one named Archive
   * on its first archive, as mail clients do; the folder list read afresh, kept, and returned.
   */
  private async archiveFolder(inbox: Inbox): Promise<Result<readonly Folder[], ActError>> {
    try {
      return ok(await foldersWithRole(this.deps, inbox, 'archive', ARCHIVE_FOLDER_NAME));
    } catch (e) {
      if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
      return err({ code: 'provider_error', message: `The mailbox refused an Archive folder: ${e.message}` });
    }
  }

  /**
   * How many of these labels the inbox has nowhere yet — not on indexed mail, not in the provider's own list — and a
   * change would make (decision 0146). Compared as written: a label that differs only in case is counted as new
   * (IMAP keywords may be told apart by case), which only ever counts one too many where the provider ignores case.
   */
  private async newLabels(inbox: Inbox, session: MailSession, labels: readonly string[]): Promise<number> {
    const listed = new Set(await session.listLabels());
    const unlisted = labels.filter((l) => !listed.has(l));
    // Gmail lists every label it has: the index is read only for what the provider's list lacks (IMAP keywords).
    if (unlisted.length === 0) return 0;
    const inUse = new Set(await this.deps.messages.labelsInUse(inbox.id));
    return new Set(unlisted.filter((l) => !inUse.has(l))).size;
  }

  private async saveUndo(actor: Actor, action: string, entries: UndoEntry[]): Promise<string> {
    const id = newId('undo');
    const now = this.deps.clock.now();
    await this.deps.undo.save({
      id,
      accountId: actor.accountId,
      action,
      entries,
      createdAt: now,
      expiresAt: new Date(now.getTime() + UNDO_TTL_MS),
    });
    return id;
  }

  /** Trims the handle written ahead to the changes made (nothing to write when all were), or drops it if none was. */
  private async settleUndo(
    actor: Actor,
    id: string | null,
    intent: readonly UndoEntry[],
    done: readonly UndoEntry[],
  ): Promise<string | null> {
    // `done` holds the planned changes that were made (apply works through the same plans): all of them, or fewer;
    // and the labels they made, which the plan could not know (decision 0146).
    const madeLabels = done.some((e) => (e.flags?.made?.length ?? 0) > 0);
    if (id === null || (done.length === intent.length && !madeLabels)) return id;
    await this.deps.undo.settle(actor.accountId, id, done);
    return done.length > 0 ? id : null;
  }

  private async resolve(who: Reach, req: ActStep): Promise<Result<Resolution, ActError>> {
    if ('sender' in req.targets) return this.resolveSender(who, req.targets.sender);
    const targets = req.targets.items;
    const byInbox = new Map<string, InboxGroup>();
    const indexed = new Map<string, Map<string, MessageSummary>>();
    const missing: (Target & { reason: 'not_found' })[] = [];
    for (const id of new Set(targets.map((t) => t.inboxId))) {
      // The inbox, its folders and its messages named here, in one read (decision 0047).
      const messages = targets.flatMap((t) => {
        const m = t.inboxId === id ? parseMessageId(t.messageId) : undefined;
        return m === undefined ? [] : [m];
      });
      const r = await this.deps.inboxes.usableWithFolders(who, id, { messages });
      if (!r.ok) return err(r.error);
      byInbox.set(id, { inbox: r.value.inbox, folders: r.value.folders, messages: [] });
      indexed.set(id, new Map((r.value.messages ?? []).map((m) => [m.id, m])));
    }
    for (const t of targets) {
      const group = byInbox.get(t.inboxId);
      const messageId = parseMessageId(t.messageId);
      const m = messageId === undefined ? undefined : indexed.get(t.inboxId)?.get(messageId);
      if (group === undefined || m === undefined) missing.push({ ...t, reason: 'not_found' });
      else if (!group.messages.some((x) => x.id === m.id)) group.messages.push(m);
    }
    if (targets.length === 1 && missing.length === 1)
      return err({
        code: 'message_not_found',
        message: 'No message with this id in this inbox.',
        next: 'use_listed_message_ids',
      });
    return ok({
      inboxes: [...byInbox.values()].filter((g) => g.messages.length > 0),
      missing,
      count: targets.length,
    });
  }

  /** Every message from one sender still in the inbox folder, up to the limit. */
  private async resolveSender(
    who: Reach,
    sender: { readonly inboxId: string; readonly address: string },
  ): Promise<Result<Resolution, ActError>> {
    const group = await this.group(who, sender.inboxId);
    if (!group.ok) return group;
    const inboxFolder = group.value.folders.find((f) => f.canonical === 'inbox');
    if (inboxFolder === undefined)
      return err({
        code: 'invalid_arguments',
        message: 'The inbox folder is not synced yet.',
        next: 'sync_first',
      });
    const page = await this.deps.messages.list(group.value.inbox.id, {
      folderId: inboxFolder.id,
      fromAddress: sender.address,
      limit: SENDER_LIMIT,
      offset: 0,
    });
    group.value.messages.push(...page.items);
    return ok({
      inboxes: [group.value],
      missing: [],
      count: group.value.messages.length,
      more: page.total > page.items.length,
    });
  }

  /** A usable inbox with its folder list, ready to collect messages. */
  private async group(who: Reach, inboxId: string): Promise<Result<InboxGroup, ActError>> {
    const r = await this.deps.inboxes.usableWithFolders(who, inboxId);
    if (!r.ok) return err(r.error);
    return ok({ ...r.value, messages: [] });
  }

  /**
   * Makes one plan's changes at the mailbox, then records them in the index. A change counts (in `changed` and its
   * undo entry) as soon as the mailbox made it, so an index write that fails after it leaves it undoable. A failure
   * of the mailbox is `error` (what was done before it stands); anything else, such as the index's database failing,
   * is `fault`, for the caller to throw.
   */
  private async apply(
    { inbox, folders, messages }: InboxGroup,
    req: ActStep,
    skipped: ActOutcome['skipped'][number][],
  ): Promise<{
    changed: ActOutcome['changed'][number][];
    undo: UndoEntry[];
    error?:
      | { code: 'provider_error'; message: string; folderGone?: true }
      | Omit<Extract<ActError, { code: 'rate_limited' }>, 'partial'>;
    fault?: Error;
  }> {
    const byId = new Map(folders.map((f) => [f.id, f]));
    const target = moveTarget(folders, req.action);
    const changed: ActOutcome['changed'][number][] = [];
    const undo: UndoEntry[] = [];
    let labelsMade: readonly string[] = [];
    const made = (m: MessageSummary) => {
      changed.push({ inboxId: inbox.id, messageId: m.id, subject: m.subject });
      undo.push(undoEntry(m, req, target, labelsMade));
    };
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox);
      if (req.action === 'label' && (req.labels?.length ?? 0) > 0) {
        const labels = req.labels ?? [];
        const fresh = await this.newLabels(inbox, session, labels);
        if (fresh > 0) {
          const perDay = this.deps.newLabelsPerDay;
          const budget = await this.deps.limiter.consume(this.labelsRule(), inbox.id, fresh);
          if (!budget.allowed)
            return { changed, undo, error: labelsRefused(budget, fresh, perDay) };
        }
        // Made before any message carries them, so that a change failing part-way still records them for its undo.
        labelsMade = await session.makeLabels(labels);
      }
      const byFolder = new Map<FolderId, MessageSummary[]>();
      for (const m of messages) {
        if (target !== undefined && m.folderId === target.id)
          skipped.push({ inboxId: inbox.id, messageId: m.id, reason: 'already_there' });
        else byFolder.set(m.folderId, [...(byFolder.get(m.folderId) ?? []), m]);
      }
      for (const [folderId, list] of byFolder) {
        const folder: Folder | undefined = byId.get(folderId);
        if (folder === undefined) continue;
        const refs = list.map((m) => m.providerRef);
        // A provider that changes message by message can fail part-way (PartialChangeError): what it did is
        // recorded like any change, and then the failure is answered.
        let partial: PartialChangeError | undefined;
        if (target !== undefined) {
          let placed: ReadonlyMap<string, Placed>;
          try {
            placed = await session.move(folder.path, refs, target.path);
          } catch (e) {
            if (!(e instanceof PartialChangeError)) throw e;
            partial = e;
            placed = e.placed;
          }
          const moved: [MessageSummary, Placed][] = [];
          for (const m of list) {
            const to = placed.get(m.providerRef);
            if (to !== undefined) {
              made(m);
              moved.push([m, to]);
            } else if (partial === undefined)
              skipped.push({ inboxId: inbox.id, messageId: m.id, reason: 'not_found' });
          }
          for (const [m, to] of moved)
            await this.deps.messages.relocate(inbox.id, m.id, target.id, to.ref, to.position);
        } else {
          const { add, remove } = flagChange(req.action, req.labels ?? []);
          let done = list;
          try {
            // One gone meanwhile is skipped, as a move skips it.
            const found = await session.setFlags(folder.path, refs, add, remove);
            done = list.filter((m) => found.has(m.providerRef));
            for (const m of list)
              if (!found.has(m.providerRef)) skipped.push({ inboxId: inbox.id, messageId: m.id, reason: 'not_found' });
          } catch (e) {
            if (!(e instanceof PartialChangeError)) throw e;
            partial = e;
            done = list.filter((m) => e.flagged.has(m.providerRef));
          }
          for (const m of done) made(m);
          for (const m of done) {
            // A request may name a label twice; the message keeps it once.
            const { labels, starred } = applyFlagChange(m, [...new Set(add)], remove);
            await this.deps.messages.updateFlags(inbox.id, m.id, { unread: m.unread, starred, labels });
          }
        }
        if (partial !== undefined) throw partial;
      }
      return { changed, undo };
    } catch (e) {
      if (!(e instanceof MailProviderError || e instanceof MailAuthError))
        return { changed, undo, fault: e instanceof Error ? e : new Error(String(e)) };
      return {
        changed,
        undo,
        error: {
          code: 'provider_error',
          message: `The mailbox refused the change: ${e.message}`,
          ...(e instanceof FolderGoneError && { folderGone: true as const }),
        },
      };
    } finally {
      // A label made for a change that then reached no message — refused whole, or every message gone — is on no
      // mail and in no undo entry: nothing would ever take it away again (decision 0146), so it goes now, if unused.
      if (session !== undefined && undo.length === 0)
        for (const name of labelsMade) await session.removeLabelIfUnused(name).catch(() => false);
      await session?.close().catch(() => undefined);
    }
  }
}

/** Why a change's new labels were refused, in words that say what would get through (decision 0153). */
function labelsRefused(
  budget: Extract<RateDecision, { allowed: false }>,
  asked: number,
  perDay: number,
): Extract<ActError, { code: 'rate_limited' }> {
  const labels = (n: number) => `${String(n)} new label${n === 1 ? '' : 's'}`;
  if (budget.exceedsBudget === true)
    return {
      code: 'rate_limited',
      message: `This change would make ${labels(asked)}; an inbox gains at most ${String(perDay)} a day, so no day takes them in one change. Labels the inbox has still go on.`,
      perDay,
      asked,
      remaining: 0,
    };
  const remaining = budget.remaining ?? 0;
  const wait = `${String(budget.retryAfterSeconds)} seconds`;
  return {
    code: 'rate_limited',
    message:
      remaining === 0
        ? `This inbox has gained ${String(perDay)} new labels in a day, as many as it takes; labels it has still go on, and a new one fits in ${wait}.`
        : `This change would make ${labels(asked)}, and this inbox can gain ${String(remaining)} more new label${remaining === 1 ? '' : 's'} today (${String(perDay)} a day), kept for a change that needs no more. Labels it has still go on; more new ones fit in ${wait}.`,
    perDay,
    asked,
    remaining,
    retryAfterSeconds: budget.retryAfterSeconds,
  };
}

/** The moves and flag changes `apply` will try for a plan, as undo entries: what it does if nothing fails. */
function intended({ folders, messages }: InboxGroup, req: ActStep): UndoEntry[] {
  const target = moveTarget(folders, req.action);
  const known = new Set(folders.map((f) => f.id));
  return messages
    .filter((m) => known.has(m.folderId) && m.folderId !== target?.id)
    .map((m) => undoEntry(m, req, target, []));
}

function moveTarget(folders: readonly Folder[], action: ActionKind): Folder | undefined {
  const canonical = MOVES[action];
  return canonical === undefined ? undefined : folders.find((f) => f.canonical === canonical);
}

/**
 * What putting one message back needs: where it was and its flags before; for a move, where it went and its
 * Message-ID (a process killed after the move but before the index learnt of it finds the message there by it).
 */
function undoEntry(
  m: MessageSummary,
  req: ActStep,
  target: Folder | undefined,
  labelsMade: readonly string[],
): UndoEntry {
  const common = {
    inboxId: m.inboxId,
    messageId: m.id,
    internetMessageId: m.internetMessageId,
    fromFolderId: m.folderId,
    before: { unread: m.unread, starred: m.starred, labels: m.labels },
  };
  return target !== undefined
    ? { ...common, toFolderId: target.id }
    : {
        ...common,
        toFolderId: null,
        flags: {
          ...flagChange(req.action, req.labels ?? []),
          ...(labelsMade.length > 0 && { made: labelsMade }),
        },
      };
}

function flagChange(action: ActionKind, labels: readonly string[]): { add: string[]; remove: string[] } {
  switch (action) {
    case 'star':
      return { add: [FLAGGED], remove: [] };
    case 'unstar':
      return { add: [], remove: [FLAGGED] };
    case 'label':
      return { add: [...labels], remove: [] };
    case 'unlabel':
      return { add: [], remove: [...labels] };
    default:
      return { add: [], remove: [] };
  }
}
