import { reaches, wholeAccount, type Reach } from '../auth/inbox-reach.ts';
import type { Clock } from '../../lib/clock.ts';
import type { NextStep } from '../next-step.ts';
import { newId, randomToken } from '../../lib/random.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { InboxError } from '../inboxes/inbox-errors.ts';
import type { InboxService } from '../inboxes/inbox-service.ts';
import type { Inbox, InboxId } from '../inboxes/inbox.ts';
import { MailAuthError, MailProviderError, type MailSession } from '../mail/mail-ports.ts';
import { folderPath, folderPathMade } from '../mail/folder-with-role.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import { sendableAddress } from '../messages/address-key.ts';
import type { CanonicalFolder } from '../messages/folder.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import type { MessageStore } from '../messages/message-store.ts';
import type { RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';
import {
  checkRecipientNames,
  checkSubject,
  checkText,
  formatRecipients,
  parseRecipients,
} from './draft-input.ts';
import type { DraftStore } from './draft-store.ts';
import type { Draft } from './draft.ts';
import type { MessageComposer } from './message-composer.ts';
import { learnSenderName } from './sender-name.ts';

export interface DraftInput {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly threadId?: string | undefined;
}

export type DraftError =
  | InboxError
  /** The draft itself is refused (a line break in To or Subject, an invalid address, an unknown thread). */
  | { readonly code: 'invalid_draft'; readonly message: string; readonly next?: NextStep }
  | { readonly code: 'provider_error'; readonly message: string }
  /** The inbox has taken its `perDay` new drafts for the day; the next fits in `retryAfterSeconds`. */
  | {
      readonly code: 'rate_limited';
      readonly message: string;
      readonly perDay: number;
      readonly retryAfterSeconds: number;
    };

export interface DraftServiceDeps {
  readonly inboxes: InboxService;
  readonly folders: FolderStore;
  readonly messages: MessageStore;
  readonly sessions: MailSessionFactory;
  readonly drafts: DraftStore;
  readonly composer: MessageComposer;
  /** Counts each inbox's new drafts, on every node alike. */
  readonly limiter: RateLimiter;
  /**
   * New drafts an inbox takes a day (decision 0126). Each is a message written into the person's mailbox, up to
   * 200,000 characters: an agent caught in a loop, or obeying a sender's words, could otherwise fill the Drafts folder
   * — and the mailbox's quota, past which the person's incoming mail is refused — at its request budget's pace.
   */
  readonly draftsPerDay: number;
  readonly clock: Clock;
}

const THREAD_REFERENCES = 10;
/** Folders of mail the person has not accepted: a reply points at it only when its thread holds nothing else. */
const NOT_ACCEPTED: ReadonlySet<CanonicalFolder | null> = new Set(['spam', 'screened']);
/**
 * A draft whose mailbox copy has been marked as being written for this long is one a process did not finish: an
 * APPEND of a text draft takes well under a second, and an unanswered one ends with the connection's timeout.
 */
const UNFINISHED_AFTER_MS = 10 * 60_000;
/** A half-written copy whose mailbox cannot be reached (paused, waiting for a reconnect) is given up after this. */
const UNFINISHED_GIVE_UP_MS = 7 * 24 * 60 * 60_000;
/** A draft has one copy, two while an edit is written: a few more are removed in one sweep, never a loop for good. */
const MAX_COPIES = 8;

/**
 * Writes drafts into the mailbox's Drafts folder (contract §4.1, §4.4). It never sends. Every header value is
 * checked before anything is written: CR, LF, NUL and other controls in To or Subject are refused, not stripped.
 */
export class DraftService {
  private readonly deps: DraftServiceDeps;
  constructor(deps: DraftServiceDeps) {
    this.deps = deps;
  }

  /** The inbox's count of new drafts today (decision 0126). */
  private draftsRule(): RateRule {
    return { name: 'drafts-per-inbox', points: this.deps.draftsPerDay, windowSeconds: 86_400 };
  }

  /** Forgets a removed inbox's count of drafts: nothing that names it outlives it (decision 0117). */
  forgetInbox(inboxId: InboxId): Promise<void> {
    return this.deps.limiter.reset(this.draftsRule(), inboxId);
  }

  /** Validation alone, so transports can refuse bad input before touching the inbox. */
  check(input: DraftInput): Result<{ to: string }, DraftError> {
    const to = parseRecipients(input.to);
    if (!to.ok) return err({ code: 'invalid_draft', message: to.error });
    const problem = checkRecipientNames(to.value) ?? checkSubject(input.subject) ?? checkText(input.text);
    if (problem !== undefined) return err({ code: 'invalid_draft', message: problem });
    if (input.threadId !== undefined && !/^[\x21-\x7e]{1,200}$/.test(input.threadId)) {
      return err({
        code: 'invalid_draft',
        message: 'threadId is not a thread id.',
        next: 'use_thread_from_message',
      });
    }
    return ok({ to: formatRecipients(to.value) });
  }

  async create(who: Reach, inboxId: string, input: DraftInput): Promise<Result<Draft, DraftError>> {
    const checked = this.check(input);
    if (!checked.ok) return checked;
    const inbox = await this.deps.inboxes.usable(who, inboxId);
    if (!inbox.ok) return inbox;
    const thread =
      input.threadId === undefined
        ? { inReplyTo: null, references: [] }
        : await this.thread(inbox.value, input.threadId);
    if (thread === undefined) {
      return err({
        code: 'invalid_draft',
        message: 'threadId is not a thread in this inbox.',
        next: 'use_thread_from_message',
      });
    }
    const perDay = this.deps.draftsPerDay;
    const budget = await this.deps.limiter.consume(this.draftsRule(), inbox.value.id);
    if (!budget.allowed)
      return err({
        code: 'rate_limited',
        message: `This inbox has taken ${String(perDay)} new drafts in a day, as many as it takes; the next fits in ${String(budget.retryAfterSeconds)} seconds.`,
        perDay,
        retryAfterSeconds: budget.retryAfterSeconds,
      });
    const now = this.deps.clock.now();
    const address = sendableAddress(inbox.value.email);
    const domain = address.slice(address.lastIndexOf('@') + 1);
    const draft: Draft = {
      id: newId('draft'),
      accountId: who.accountId,
      inboxId: inbox.value.id,
      to: checked.value.to,
      subject: input.subject,
      body: input.text.replace(/\r\n?/g, '\n'),
      threadId: input.threadId ?? null,
      inReplyTo: thread.inReplyTo,
      references: thread.references,
      internetMessageId: `<${randomToken(24)}@${domain}>`,
      folderPath: null,
      providerDraftId: null,
      version: 1,
      status: 'draft',
      createdAt: now,
      updatedAt: now,
    };
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox.value);
      const sender = await this.withSenderName(session, inbox.value);
      const raw = await this.deps.composer.compose(compositionOf(draft, sender, now));
      // A mailbox without Drafts gets one, as mail clients make it on the first draft (decision 0087).
      const path = await folderPathMade(this.deps, session, inbox.value, 'drafts', 'Drafts');
      if (path === undefined)
        return err({ code: 'provider_error', message: 'This mailbox has no Drafts folder, and took none.' });
      // The row goes first and the copy's place is recorded after it (decision 0031): a process that dies between
      // the two leaves a row without a folder, which `recoverUnfinished` resolves, never a copy nothing knows of.
      await this.deps.drafts.create(draft);
      const placed = await session.append(path, raw, ['\\Draft', '\\Seen'], now);
      await this.deps.drafts.placed(draft.id, path, placed?.ref ?? null, now);
      return ok({ ...draft, folderPath: path, providerDraftId: placed?.ref ?? null });
    } catch (e) {
      if (e instanceof MailProviderError || e instanceof MailAuthError) {
        return err({ code: 'provider_error', message: `The mailbox refused the draft: ${e.message}` });
      }
      throw e;
    } finally {
      await session?.close().catch(() => undefined);
    }
  }

  /**
   * Replaces the content of a draft the person edits (the draft card). The new copy is written to the mailbox first,
   * then the content is swapped in one compare-and-set on `expectedVersion`; the loser of a race removes its copy.
   * The version goes up by one, so every approval of the old content (approval codes, card codes) stops working.
   */
  async edit(
    who: Reach,
    draftId: string,
    expectedVersion: number,
    input: Omit<DraftInput, 'threadId'>,
  ): Promise<Result<Draft, DraftError | { readonly code: 'draft_changed'; readonly message: string }>> {
    const checked = this.check(input);
    if (!checked.ok) return checked;
    const draft = await this.get(who, draftId);
    if (draft?.status !== 'draft' || draft.version !== expectedVersion) {
      return err({
        code: 'draft_changed',
        message: 'The draft changed, was sent or is gone since it was shown.',
      });
    }
    const inbox = await this.deps.inboxes.usable(who, draft.inboxId);
    if (!inbox.ok) return inbox;
    const now = this.deps.clock.now();
    const content = {
      to: checked.value.to,
      subject: input.subject,
      body: input.text.replace(/\r\n?/g, '\n'),
    };
    const next: Draft = { ...draft, ...content, version: draft.version + 1, updatedAt: now };
    const raw = await this.deps.composer.compose(compositionOf(next, inbox.value, now));
    // Marked before the new copy is written and cleared when it is recorded (decision 0031): a process that dies in
    // between leaves the mark, and `recoverUnfinished` rewrites the copy from the recorded content.
    if (!(await this.deps.drafts.beginCopy(who.accountId, draft.id, expectedVersion, now))) {
      return err({
        code: 'draft_changed',
        message: 'The draft changed, was sent or is gone since it was shown.',
      });
    }
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox.value);
      const path = draft.folderPath ?? (await folderPath(this.deps.folders, session, inbox.value, 'drafts'));
      if (path === undefined)
        return err({ code: 'provider_error', message: 'This mailbox has no Drafts folder.' });
      const placed = await session.append(path, raw, ['\\Draft', '\\Seen'], now);
      const edited = await this.deps.drafts.edit(who.accountId, draft.id, expectedVersion, content, now);
      if (edited === undefined) {
        if (placed !== undefined) await session.deleteOwnDraft(path, placed.ref);
        return err({ code: 'draft_changed', message: 'The draft changed while it was being saved.' });
      }
      if (draft.folderPath !== null && draft.providerDraftId !== null)
        await session.deleteOwnDraft(draft.folderPath, draft.providerDraftId).catch(() => undefined);
      await this.deps.drafts.placed(draft.id, path, placed?.ref ?? null, now);
      return ok({ ...edited, folderPath: path, providerDraftId: placed?.ref ?? null });
    } catch (e) {
      if (e instanceof MailProviderError || e instanceof MailAuthError) {
        return err({ code: 'provider_error', message: `The mailbox refused the edited draft: ${e.message}` });
      }
      throw e;
    } finally {
      await session?.close().catch(() => undefined);
    }
  }

  /**
   * Finishes what a process left half-done between a draft's row and its mailbox copy (decision 0031), for drafts
   * marked as having their copy written for ten minutes:
   * - a draft whose creation did not finish (it has no folder yet: the process died before recording the copy, or
   *   the mailbox failed during the APPEND) — a copy the mailbox holds is removed and the draft discarded. The agent
   *   whose call failed never received its id, and one that tries again writes a new draft: the person's Drafts
   *   does not fill with copies no one can send;
   * - an edit that did not finish — every copy with the draft's Message-ID is removed and one copy of the recorded
   *   content (what approvals are bound to) written in its place.
   */
  async recoverUnfinished(): Promise<number> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - UNFINISHED_AFTER_MS);
    let resolved = 0;
    for (const draft of await this.deps.drafts.pendingCopies(before, 100)) {
      // A sweep on another node may have taken it: of two, only one removes and rewrites copies.
      if (!(await this.deps.drafts.claimPendingCopy(draft.id, before, now))) continue;
      if (await this.finishCopy(draft, now)) resolved++;
    }
    return resolved;
  }

  private async finishCopy(draft: Draft, now: Date): Promise<boolean> {
    const inbox = await this.deps.inboxes.usable(wholeAccount(draft.accountId), draft.inboxId);
    if (!inbox.ok) {
      // A deleted inbox has no mailbox. One paused or waiting for a reconnect is tried again by later sweeps, for a
      // week; then an unfinished creation is discarded and an unfinished edit keeps the copy it has.
      const gone = inbox.error.code === 'inbox_not_found';
      if (!gone && now.getTime() - draft.updatedAt.getTime() <= UNFINISHED_GIVE_UP_MS) return false;
      if (gone || draft.folderPath === null) await this.deps.drafts.setStatus(draft.id, 'discarded', now);
      else await this.deps.drafts.placed(draft.id, draft.folderPath, draft.providerDraftId, now);
      return true;
    }
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox.value);
      if (draft.folderPath === null) {
        // A creation: whatever copy reached the mailbox goes with the draft.
        const path = await folderPath(this.deps.folders, session, inbox.value, 'drafts');
        if (path !== undefined) await removeCopies(session, path, draft.internetMessageId);
        await this.deps.drafts.setStatus(draft.id, 'discarded', now);
      } else {
        // An edit: one copy, of the recorded content.
        const path = draft.folderPath;
        await removeCopies(session, path, draft.internetMessageId);
        const raw = await this.deps.composer.compose(compositionOf(draft, inbox.value, now));
        const placed = await session.append(path, raw, ['\\Draft', '\\Seen'], now);
        // The person may have started another edit since the claim: then its copy is the one that counts.
        const kept = await this.deps.drafts.placedByClaim(draft.id, now, path, placed?.ref ?? null, now);
        if (!kept && placed !== undefined) await session.deleteOwnDraft(path, placed.ref);
      }
      return true;
    } catch (e) {
      if (e instanceof MailProviderError || e instanceof MailAuthError) return false; // the next sweep tries again
      throw e;
    } finally {
      await session?.close().catch(() => undefined);
    }
  }

  /** A draft of the account, when `who` may reach its inbox (decision 0142). */
  async get(who: Reach, draftId: string): Promise<Draft | undefined> {
    if (!/^draft_[a-z0-9]{20}$/.test(draftId)) return undefined;
    const draft = await this.deps.drafts.get(who.accountId, draftId);
    return draft !== undefined && reaches(who.inboxes, draft.inboxId) ? draft : undefined;
  }

  /**
   * The inbox with the person's name for the From line: learned from their Sent mail on the first draft (decision
   * 0088) and kept. A mailbox that cannot be read for it now gets a draft from the bare address and is asked again on
   * the next one.
   */
  private async withSenderName(session: MailSession, inbox: Inbox): Promise<Inbox> {
    if (inbox.senderName !== null) return inbox;
    let learned: string | undefined;
    try {
      learned = await learnSenderName(this.deps.folders, session, inbox);
    } catch (e) {
      if (e instanceof MailProviderError) return inbox;
      throw e;
    }
    return learned === undefined ? inbox : this.deps.inboxes.learnedSenderName(inbox, learned);
  }

  /**
   * The message to reply to (the newest in the thread with a Message-ID) and up to ten References, from mail that
   * was sent or received (decision 0109): a draft's Message-ID names a message nobody has, and mail in Spam or
   * Screened is answered only when the thread holds nothing else — a stranger who quotes a thread's Message-ID does
   * not make the person's reply point at their message.
   */
  private async thread(
    inbox: Inbox,
    threadId: string,
  ): Promise<{ inReplyTo: string | null; references: string[] } | undefined> {
    const page = await this.deps.messages.list(inbox.id, { threadId, limit: 50, offset: 0 });
    if (page.items.length === 0) return undefined;
    const roles = new Map((await this.deps.folders.list(inbox.id)).map((f) => [f.id, f.canonical]));
    const real = page.items.filter((m) => roles.get(m.folderId) !== 'drafts');
    const accepted = real.filter((m) => !NOT_ACCEPTED.has(roles.get(m.folderId) ?? null));
    const ids = (accepted.length > 0 ? accepted : real)
      .filter((m) => m.internetMessageId !== null && /^<[\x21-\x7e]{1,250}>$/.test(m.internetMessageId))
      .map((m) => m.internetMessageId as string);
    return { inReplyTo: ids[0] ?? null, references: [...new Set(ids.slice(0, THREAD_REFERENCES).reverse())] };
  }
}

export function compositionOf(draft: Draft, inbox: Inbox, date: Date) {
  return {
    from: { name: inbox.senderName ?? '', address: inbox.email },
    to: draft.to,
    subject: draft.subject,
    text: draft.body,
    messageId: draft.internetMessageId,
    inReplyTo: draft.inReplyTo,
    references: draft.references,
    date,
  };
}

/** Removes every message in `path` with this Message-ID (a draft's copies carry its own, unique one). */
async function removeCopies(session: MailSession, path: string, internetMessageId: string): Promise<void> {
  for (let i = 0; i < MAX_COPIES; i++) {
    const copy = await session.locate(path, internetMessageId);
    if (copy === undefined) return;
    await session.deleteOwnDraft(path, copy.ref);
  }
}
