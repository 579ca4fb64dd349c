import { wholeAccount } from '../auth/inbox-reach.ts';
import type { Clock } from '../../lib/clock.ts';
import type { NextStep } from '../next-step.ts';
import type { Logger } from '../../lib/logger.ts';
import { newId } from '../../lib/random.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';
import {
  checkApprovalCode,
  checkApprovalInApp,
  newApprovalCode,
  newestWaiting,
  type ApprovalCheck,
} from '../approvals/approval-code.ts';
import type { Principal } from '../auth/principal.ts';
import { compositionOf } from '../drafts/draft-service.ts';
import { parseRecipients, sameRecipients } from '../drafts/draft-input.ts';
import type { DraftStore, PendingSendStore } from '../drafts/draft-store.ts';
import type { Draft, PendingSend, Requester } from '../drafts/draft.ts';
import type { MessageComposer } from '../drafts/message-composer.ts';
import type { InboxError } from '../inboxes/inbox-errors.ts';
import type { InboxService } from '../inboxes/inbox-service.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import { MailAuthError, MailProviderError, type MailSession } from '../mail/mail-ports.ts';
import { folderPathMade } from '../mail/folder-with-role.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import { sendableAddress } from '../messages/address-key.ts';
import type { MessageStore } from '../messages/message-store.ts';
import type { ProfileService } from '../profile/profile-service.ts';
import type { SettingsStore } from '../settings/settings-store.ts';
import {
  SubmitRefusedError,
  SubmitUncertainError,
  type MailSubmitter,
  type SubmitReceipt,
} from './mail-submitter.ts';

/** The shape of a pending send's id (`newId('ps')`): any other string is never looked up. */
const PENDING_SEND_ID = /^ps_[a-z0-9]{20}$/;

export const SEND_APPROVAL_TTL_MS = 24 * 3_600_000;
export const SEND_MAX_WRONG_CODES = 5;
/** A claim older than this without an outcome was left by a process that died mid-send. */
const STRANDED_AFTER_MS = 10 * 60_000;
const SEND_ENABLED = 'sendEnabled';

export type Offer =
  | {
      readonly sendAvailable: true;
      readonly pendingSendId: string;
      readonly approvalCode: string;
      readonly expiresAt: Date;
    }
  | { readonly sendAvailable: false; readonly reason: 'send_disabled' | 'provider_cannot_send' };

export interface SendRequest {
  readonly pendingSendId: string;
  readonly approvalCode: string;
  /** The person approved this exact send in the chat (as the agent reports it). */
  readonly approvedInChat: boolean;
  readonly confirmTo?: string | undefined;
  readonly confirmSubject?: string | undefined;
}

export interface SendOutcome {
  readonly draft: Draft;
  readonly sentAt: Date;
  /** Follow-up work in the mailbox that failed after the message was accepted (it was still sent). */
  readonly warnings: readonly string[];
  /** Addresses the mail server refused while it took the message for the others: it did not go to them. */
  readonly refusedRecipients: readonly string[];
}

export type SendError =
  | InboxError
  | {
      readonly code: 'send_disabled' | 'human_approval_required' | 'approval_expired' | 'confirm_mismatch';
      readonly message: string;
      readonly next?: NextStep;
    }
  | {
      readonly code: 'approval_invalid';
      readonly message: string;
      readonly attemptsLeft?: number;
      readonly next?: NextStep;
    }
  | { readonly code: 'approval_used'; readonly message: string; readonly status: string }
  | {
      readonly code: 'provider_error';
      readonly message: string;
      readonly status: 'not_sent' | 'unknown';
      /** Why, in the adapter's words ("the mail server answered 550 (Sender address rejected: …)"). */
      readonly reason: string;
    };

export interface SendServiceDeps {
  readonly drafts: DraftStore;
  readonly pendingSends: PendingSendStore;
  readonly inboxes: InboxService;
  readonly folders: FolderStore;
  readonly messages: MessageStore;
  readonly sessions: MailSessionFactory;
  readonly submitter: MailSubmitter;
  readonly composer: MessageComposer;
  readonly settings: SettingsStore;
  readonly profiles: ProfileService;
  readonly clock: Clock;
  readonly log: Logger;
}

/**
 * Approved sending (DESIGN.md §4 approvals). An approval code is random, stored only as a hash, single-use, bound
 * to one draft version, valid 24 hours, and locked after five wrong codes. Redeeming it is one conditional update,
 * so of any number of racing calls one sends. The send is recorded as `sending` before the SMTP exchange starts
 * and is never retried on its own: a process that dies mid-send leaves `unknown`, not a second email.
 */
export class SendService {
  private readonly deps: SendServiceDeps;
  constructor(deps: SendServiceDeps) {
    this.deps = deps;
  }

  async isEnabled(accountId: AccountId): Promise<boolean> {
    return (await this.deps.settings.get(accountId, SEND_ENABLED)) === true;
  }

  async setEnabled(accountId: AccountId, enabled: boolean): Promise<void> {
    await this.deps.settings.set(accountId, SEND_ENABLED, enabled, this.deps.clock.now());
  }

  /** Whether a draft of this inbox can be sent at all now: sending on for the account, and an inbox that sends. */
  async available(accountId: AccountId, inbox: Inbox): Promise<boolean> {
    return this.deps.submitter.canSend(inbox) && (await this.isEnabled(accountId));
  }

  /** An approval for this draft version, when sending is on and the inbox can send. */
  async offer(draft: Draft, inbox: Inbox, requestedBy: Requester | null = null): Promise<Offer> {
    if (!this.deps.submitter.canSend(inbox)) return { sendAvailable: false, reason: 'provider_cannot_send' };
    if (!(await this.isEnabled(draft.accountId))) return { sendAvailable: false, reason: 'send_disabled' };
    const { code, codeHash } = newApprovalCode();
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + SEND_APPROVAL_TTL_MS);
    const id = newId('ps');
    await this.deps.pendingSends.create({
      id,
      accountId: draft.accountId,
      draftId: draft.id,
      draftVersion: draft.version,
      codeHash,
      attempts: 0,
      status: 'pending',
      createdAt: now,
      expiresAt,
      claimedAt: null,
      finishedAt: null,
      error: null,
      requestedBy,
    });
    return { sendAvailable: true, pendingSendId: id, approvalCode: code, expiresAt };
  }

  async send(principal: Principal, req: SendRequest): Promise<Result<SendOutcome, SendError>> {
    const { accountId } = principal;
    const now = this.deps.clock.now();
    if (!(await this.isEnabled(accountId))) {
      return err({
        code: 'send_disabled',
        message: 'Sending is turned off for this account.',
        next: 'ask_person_to_enable_sending',
      });
    }
    if (!req.approvedInChat) {
      return err({
        code: 'human_approval_required',
        message: 'The person has not approved this send.',
        next: 'ask_person_to_approve_send',
      });
    }
    const check = await checkApprovalCode(
      this.deps.pendingSends,
      accountId,
      { id: req.pendingSendId, code: req.approvalCode },
      { idShape: PENDING_SEND_ID, maxWrongCodes: SEND_MAX_WRONG_CODES, now },
    );
    if (!check.ok) return err(refusal(check));
    const ps = check.approval;
    const draft = await this.deps.drafts.get(accountId, ps.draftId);
    if (draft?.status !== 'draft' || draft.version !== ps.draftVersion) {
      // A call racing this one with the same approval may have sent the draft since it was read here: then this
      // approval is used, as a call coming after would be told, not invalid.
      const again = await this.deps.pendingSends.get(accountId, ps.id);
      if (again?.status === 'locked') return err(refusal({ ok: false, reason: 'locked' }));
      if (again !== undefined && again.status !== 'pending')
        return err(refusal({ ok: false, reason: 'used', status: again.status, error: again.error }));
      return err({
        code: 'approval_invalid',
        message:
          'The draft changed or is gone since this approval was made; the approval covers only the exact version the person saw.',
      });
    }
    const mismatch = confirmMismatch(draft, req);
    if (mismatch !== undefined) return err({ code: 'confirm_mismatch', message: mismatch });
    // An agent sends only from an inbox it may reach (decision 0142); the code alone does not widen that.
    const inbox = await this.deps.inboxes.usable(principal, draft.inboxId);
    if (!inbox.ok) return inbox;
    const prefs = await this.deps.profiles.effective(accountId, inbox.value.id);
    if (prefs.sending.requireInAppConfirmation) {
      return err({
        code: 'human_approval_required',
        message:
          'The person requires confirming every send in the app (triage profile sending.requireInAppConfirmation); approval in chat is not enough. Ask them to open the draft and press Send there.',
      });
    }
    if (!(await this.deps.pendingSends.claim(ps.id, now))) {
      const again = await this.deps.pendingSends.get(accountId, ps.id);
      // Locked by wrong codes that raced this one: refused as it would be after them.
      if (again?.status === 'locked') return err(refusal({ ok: false, reason: 'locked' }));
      return err({
        code: 'approval_used',
        message: 'This approval was just used by another call. Each approval sends once.',
        status: again?.status ?? 'sending',
      });
    }
    return this.deliver(ps.id, draft, inbox.value);
  }

  /**
   * Sends waiting for the person, with their drafts, newest first (Waiting for you): the newest `WAITING_SHOWN`, and
   * whether more wait behind them (an inbox takes 200 drafts a day, decision 0126).
   */
  async waiting(
    accountId: AccountId,
  ): Promise<{ items: { pending: PendingSend; draft: Draft }[]; more: boolean }> {
    const newest = await newestWaiting((limit) =>
      this.deps.pendingSends.waiting(accountId, this.deps.clock.now(), limit),
    );
    // Their drafts in one read, not one each.
    const drafts = new Map(
      (
        await this.deps.drafts.getMany(
          accountId,
          newest.items.map((p) => p.draftId),
        )
      ).map((d) => [d.id, d]),
    );
    const items: { pending: PendingSend; draft: Draft }[] = [];
    for (const pending of newest.items) {
      const draft = drafts.get(pending.draftId);
      if (draft?.status === 'draft' && draft.version === pending.draftVersion) items.push({ pending, draft });
    }
    return { items, more: newest.more };
  }

  /** The person declines a send in the app: its code will never send. */
  discard(accountId: AccountId, pendingSendId: string): Promise<boolean> {
    return this.deps.pendingSends.discard(accountId, pendingSendId);
  }

  /**
   * The person presses Send in the app — the in-app confirmation path. No approval code (the person is the
   * authority, signed in), but every other rule of `send` holds: sending on, a pending, unexpired approval for the
   * exact draft version, a usable inbox, and one conditional claim, so a double click sends once.
   */
  async sendFromApp(accountId: AccountId, pendingSendId: string): Promise<Result<SendOutcome, SendError>> {
    const now = this.deps.clock.now();
    if (!(await this.isEnabled(accountId)))
      return err({ code: 'send_disabled', message: 'Sending is turned off for this account.' });
    const check = await checkApprovalInApp(this.deps.pendingSends, accountId, pendingSendId, {
      idShape: PENDING_SEND_ID,
      now,
    });
    if (!check.ok) return err(refusal(check));
    const ps = check.approval;
    const draft = await this.deps.drafts.get(accountId, ps.draftId);
    if (draft?.status !== 'draft' || draft.version !== ps.draftVersion)
      return err({ code: 'approval_invalid', message: 'The draft changed or is gone since it was offered.' });
    const inbox = await this.deps.inboxes.usable(wholeAccount(accountId), draft.inboxId);
    if (!inbox.ok) return inbox;
    if (!(await this.deps.pendingSends.claim(ps.id, now))) {
      const again = await this.deps.pendingSends.get(accountId, ps.id);
      return err({
        code: 'approval_used',
        message: 'This send was just used.',
        status: again?.status ?? 'sending',
      });
    }
    return this.deliver(ps.id, draft, inbox.value);
  }

  /**
   * The person pressed Send on the draft card (contract §4.4 `confirmInApp`); `DraftCardService` has spent the card's
   * code and checked the content. The person's click is the approval, so the profile's in-app rule is met, but
   * sending must be on and the inbox able to send. A pending send is recorded and claimed like any other: a draft is
   * sent at most once whichever path claims it first (the store refuses a second claim on the same draft).
   */
  async sendFromCard(principal: Principal, draft: Draft): Promise<Result<SendOutcome, SendError>> {
    const { accountId } = principal;
    if (!(await this.isEnabled(accountId)))
      return err({
        code: 'send_disabled',
        message: 'Sending is turned off for this account.',
        next: 'ask_person_to_enable_sending',
      });
    const inbox = await this.deps.inboxes.usable(principal, draft.inboxId);
    if (!inbox.ok) return inbox;
    const c = principal.credential;
    const offer = await this.offer(draft, inbox.value, {
      kind: c.kind,
      id: c.id,
      clientId: c.kind === 'access_token' ? c.clientId : null,
    });
    if (!offer.sendAvailable)
      return err({ code: 'send_disabled', message: 'This inbox cannot send mail from here.' });
    if (!(await this.deps.pendingSends.claim(offer.pendingSendId, this.deps.clock.now()))) {
      await this.deps.pendingSends.discard(accountId, offer.pendingSendId);
      return err({
        code: 'approval_used',
        message: 'This draft was already sent, or is being sent, by another approval. It is sent once.',
        status: 'sending',
      });
    }
    return this.deliver(offer.pendingSendId, draft, inbox.value);
  }

  private async deliver(
    pendingSendId: string,
    draft: Draft,
    inbox: Inbox,
  ): Promise<Result<SendOutcome, SendError>> {
    const sentAt = this.deps.clock.now();
    const recipients = parseRecipients(draft.to);
    const raw = await this.deps.composer.compose(compositionOf(draft, inbox, sentAt));
    let receipt: SubmitReceipt;
    try {
      receipt = await this.deps.submitter.submit(inbox, {
        envelopeFrom: sendableAddress(inbox.email),
        recipients: recipients.ok ? recipients.value.map((r) => r.address) : [],
        raw,
        draft:
          draft.folderPath !== null && draft.providerDraftId !== null
            ? { folderPath: draft.folderPath, ref: draft.providerDraftId }
            : undefined,
      });
    } catch (e) {
      if (e instanceof SubmitRefusedError) {
        await this.deps.pendingSends.unclaim(pendingSendId);
        if (e.authFailed) await this.deps.inboxes.markNeedsReconnect(inbox, e.message, sentAt);
        // An outgoing server that cannot be used may be the wrong one: where it is changed (decision 0095).
        const fix = e.serverUnusable
          ? ' If the outgoing mail server is wrong, the account’s owner changes it on the Inboxes page (Change password or servers).'
          : '';
        return err({
          code: 'provider_error',
          message: `Not sent: ${e.message}. Nothing went out; the approval still works once this is fixed.${fix}`,
          status: 'not_sent',
          reason: e.message,
        });
      }
      const reason = e instanceof SubmitUncertainError ? e.message : 'an unexpected failure';
      await this.deps.pendingSends.finish(pendingSendId, 'unknown', this.deps.clock.now(), reason);
      this.deps.log.warn({ pendingSendId, draftId: draft.id }, 'send outcome unknown');
      return err({
        code: 'provider_error',
        message: `The connection broke off during sending (${reason}); the message may or may not have gone out. It will not be sent again automatically.`,
        status: 'unknown',
        reason,
      });
    }
    await this.deps.pendingSends.finish(pendingSendId, 'sent', this.deps.clock.now(), null);
    await this.deps.drafts.setStatus(draft.id, 'sent', this.deps.clock.now());
    // Gmail's drafts.send filed the copy in Sent and used up the draft; after SMTP both are ours to do, but for a
    // server that files its own copy (Gmail's SMTP, decision 0082).
    const warnings = receipt.filedByProvider
      ? []
      : await this.fileAway(draft, inbox, raw, sentAt, receipt.copyFiledByServer !== true);
    const refusedRecipients = receipt.refusedRecipients ?? [];
    return ok({ draft: { ...draft, status: 'sent' }, sentAt, warnings, refusedRecipients });
  }

  /**
   * After the server accepted it: a copy in Sent (unless the server filed one), the draft removed, the message it
   * answers marked. Each step is tried whatever became of the one before — a copy refused by a full mailbox must not
   * leave the sent draft offered for sending again — and a failure is a warning with the mailbox's words. None of
   * them unsends anything.
   */
  private async fileAway(
    draft: Draft,
    inbox: Inbox,
    raw: Uint8Array,
    sentAt: Date,
    fileCopy: boolean,
  ): Promise<string[]> {
    const warnings: string[] = [];
    const failed = (step: string, e: unknown, words: string, advice?: string) => {
      this.deps.log.warn(
        { draftId: draft.id, step, err: e instanceof Error ? e.name : 'unknown' },
        'filing a sent message failed',
      );
      const why = e instanceof MailProviderError || e instanceof MailAuthError ? ` (${e.message})` : '';
      warnings.push(`The message was sent, but ${words}${why}${advice === undefined ? '' : `; ${advice}`}.`);
    };
    const step = async (name: string, words: string, run: () => Promise<void>, advice?: string) => {
      try {
        await run();
      } catch (e) {
        failed(name, e, words, advice);
      }
    };
    let session: MailSession;
    try {
      session = await this.deps.sessions.open(inbox);
    } catch (e) {
      failed(
        'open',
        e,
        'the mailbox could not be reached to file its copy in Sent and remove its draft',
        'delete the draft there, so that it is not sent twice',
      );
      return warnings;
    }
    try {
      if (fileCopy)
        await step('copy', 'its copy could not be filed in Sent', async () => {
          // A mailbox without Sent gets one, as mail clients make it on the first send (decision 0087).
          const sent = await folderPathMade(this.deps, session, inbox, 'sent', 'Sent');
          if (sent === undefined)
            warnings.push(
              'The message was sent, but this mailbox has no Sent folder and took none, so no copy was filed.',
            );
          else await session.append(sent, raw, ['\\Seen'], sentAt);
        });
      const { folderPath: path, providerDraftId: ref } = draft;
      if (path !== null && ref !== null)
        await step(
          'draft',
          'its draft could not be removed from Drafts',
          () => session.deleteOwnDraft(path, ref),
          'delete it there, so that it is not sent twice',
        );
      await this.markAnswered(session, draft, inbox);
    } finally {
      await session.close().catch(() => undefined);
    }
    return warnings;
  }

  /**
   * The message a sent reply answers marked `\\Answered` in the mailbox, as mail clients mark it, so the person's own
   * client shows it replied to (decision 0083): the thread's message with the reply's In-Reply-To, wherever it is
   * filed but Sent and Drafts. A failure is logged and told to no one: the message went out and is filed.
   */
  private async markAnswered(session: MailSession, draft: Draft, inbox: Inbox): Promise<void> {
    if (draft.threadId === null || draft.inReplyTo === null) return;
    try {
      const [folders, thread] = await Promise.all([
        this.deps.folders.list(inbox.id),
        this.deps.messages.list(inbox.id, { threadId: draft.threadId, limit: 50, offset: 0 }),
      ]);
      for (const m of thread.items) {
        if (m.internetMessageId !== draft.inReplyTo) continue;
        const folder = folders.find((f) => f.id === m.folderId);
        if (folder === undefined || folder.canonical === 'sent' || folder.canonical === 'drafts') continue;
        await session.setFlags(folder.path, [m.providerRef], ['\\Answered'], []);
      }
    } catch (e) {
      this.deps.log.warn(
        { draftId: draft.id, err: e instanceof Error ? e.name : 'unknown' },
        'marking the answered message failed',
      );
    }
  }

  /** Marks sends left `sending` by a process that died as `unknown`; run on start and periodically. */
  async recoverStranded(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - STRANDED_AFTER_MS);
    const stranded = await this.deps.pendingSends.stranded(before);
    for (const ps of stranded) {
      await this.deps.pendingSends.finish(
        ps.id,
        'unknown',
        this.deps.clock.now(),
        'the process stopped during sending',
      );
    }
    return stranded.length;
  }
}

/** Why a send is refused when its code did not redeem the approval, in words. */
function refusal(check: Exclude<ApprovalCheck<PendingSend>, { ok: true }>): SendError {
  switch (check.reason) {
    case 'not_found':
      return {
        code: 'approval_invalid',
        message: 'No pending send with this id.',
        next: 'use_offered_approval',
      };
    case 'locked':
      return {
        code: 'approval_invalid',
        message: 'This approval is locked after too many wrong codes. Create the draft again for a new one.',
        attemptsLeft: 0,
      };
    case 'wrong_code':
      return {
        code: 'approval_invalid',
        message: `The approval code does not match this pending send (${String(check.attemptsLeft)} attempts left).`,
        next: 'use_offered_approval',
        attemptsLeft: check.attemptsLeft,
      };
    case 'used':
      return {
        code: 'approval_used',
        message:
          check.status === 'unknown'
            ? `Whether this draft went out is not known${check.error === null ? '' : ` (${check.error})`}: check the Sent folder. Each approval sends once.`
            : `This approval was already used (send ${check.status}). Each approval sends once.`,
        status: check.status,
      };
    case 'expired':
      return {
        code: 'approval_expired',
        message: 'This approval expired (they last 24 hours). Create the draft again to get a new one.',
      };
  }
}

function confirmMismatch(draft: Draft, req: SendRequest): string | undefined {
  if (req.confirmTo !== undefined && !sameRecipients(req.confirmTo, draft.to)) {
    return `confirmTo does not match the draft's recipients (${draft.to}). Show the person the draft again.`;
  }
  if (req.confirmSubject !== undefined && req.confirmSubject.trim() !== draft.subject.trim()) {
    return 'confirmSubject does not match the draft’s subject. Show the person the draft again.';
  }
  return undefined;
}
