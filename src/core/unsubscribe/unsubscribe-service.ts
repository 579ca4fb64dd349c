import { wholeAccount, type Reach } from '../auth/inbox-reach.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Serializer } from '../../lib/keyed-mutex.ts';
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
import type { Requester } from '../drafts/draft.ts';
import type { InboxError } from '../inboxes/inbox-errors.ts';
import type { InboxService } from '../inboxes/inbox-service.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import { MailAuthError, MailProviderError, MAX_RAW_BYTES } from '../mail/mail-ports.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import { parseMessageId, type Address } from '../messages/message.ts';
import type { MessageStore } from '../messages/message-store.ts';
import type { ProfileService } from '../profile/profile-service.ts';
import type { VipService } from '../vips/vip-service.ts';
import type { DkimVerifier } from './dkim-verifier.ts';
import type { ListSender, MailingListIndex } from './mailing-list-index.ts';
import {
  oneClickVerdict,
  tooLargeVerdict,
  type NoOneClickReason,
  type UnsubscribeFallback,
} from './one-click-policy.ts';
import type { PendingUnsubscribeStore } from './pending-unsubscribe-store.ts';
import type { PendingUnsubscribe, UnsubscribeResult } from './pending-unsubscribe.ts';
import type { PostOutcome, UnsubscribePoster } from './unsubscribe-poster.ts';

/** The shape of a pending unsubscribe request's id (`newId('pu')`): any other string is never looked up. */
const PENDING_UNSUBSCRIBE_ID = /^pu_[a-z0-9]{20}$/;

export const UNSUBSCRIBE_APPROVAL_TTL_MS = 24 * 3_600_000;
/** A request still `posting` this long after its claim was cut short: the request itself times out in seconds. */
const STRANDED_AFTER_MS = 10 * 60_000;
export const UNSUBSCRIBE_MAX_WRONG_CODES = 5;

export interface UnsubscribeServiceDeps {
  readonly pending: PendingUnsubscribeStore;
  readonly lists: MailingListIndex;
  readonly messages: MessageStore;
  readonly folders: FolderStore;
  readonly sessions: MailSessionFactory;
  readonly inboxes: InboxService;
  readonly vips: VipService;
  readonly profiles: ProfileService;
  readonly dkim: DkimVerifier;
  /** The real request, and the demo inbox's stand-in that only records it. */
  readonly posters: { readonly real: UnsubscribePoster; readonly demo: UnsubscribePoster };
  readonly clock: Clock;
  readonly log: Logger;
  /** One proposal per sender at a time, on every node: each replaces the one before (decision 0128). */
  readonly serial: Serializer;
}

export interface SenderRow extends ListSender {
  readonly vip: boolean;
  /** Our last request for this sender, and whether its mail kept coming after it. */
  readonly unsubscribed: (UnsubscribeResult & { readonly mailSince: boolean }) | null;
}

export interface Proposal {
  readonly pendingUnsubscribeId: string;
  readonly approvalCode: string;
  readonly expiresAt: Date;
  readonly sender: Address;
  readonly listId: string | null;
  readonly url: string;
  readonly signedBy: string;
}

export interface Confirmation {
  readonly pending: PendingUnsubscribe;
  readonly outcome: PostOutcome;
  readonly isDemo: boolean;
}

export type UnsubscribeError =
  | InboxError
  | { readonly code: 'message_not_found' }
  | { readonly code: 'provider_error'; readonly detail: string }
  | { readonly code: 'vip_confirmation_required'; readonly sender: string }
  | {
      readonly code: 'unsubscribe_unavailable';
      readonly reason: NoOneClickReason;
      readonly fallback: UnsubscribeFallback;
    }
  | { readonly code: 'human_approval_required'; readonly inAppRequired: boolean }
  | { readonly code: 'approval_invalid'; readonly attemptsLeft?: number; readonly locked?: boolean }
  | { readonly code: 'approval_used'; readonly status: string }
  | { readonly code: 'approval_expired' };

export interface ConfirmRequest {
  readonly pendingUnsubscribeId: string;
  readonly approvalCode: string;
  /** The person approved this request in the chat (as the agent reports it). */
  readonly approvedInChat: boolean;
  /** The person confirmed in the app itself (a view's button), not only in chat. */
  readonly confirmedInApp: boolean;
}

/**
 * Unsubscribing (RFC 8058 one-click) with the approval discipline of sending (DESIGN.md §4): a request is offered
 * only for a DKIM-verified one-click header, its approval code is random, hashed, single-use, bound to one
 * sender and URL, valid 24 hours and locked after five wrong codes, and redeeming it is one conditional update —
 * so of any number of racing confirms exactly one makes the request, and it is never retried on its own.
 */
export class UnsubscribeService {
  private readonly deps: UnsubscribeServiceDeps;
  constructor(deps: UnsubscribeServiceDeps) {
    this.deps = deps;
  }

  /** Mailing-list senders of these inboxes (all the account's, or one), with what we did about each. */
  async senders(
    accountId: AccountId,
    inboxes: readonly Inbox[],
    page: { limit: number; offset: number },
  ): Promise<{ rows: SenderRow[]; total: number; nextOffset: number | null }> {
    const ids = inboxes.map((i) => i.id);
    const { rows, total } = await this.deps.lists.senders(ids, page);
    const results = new Map(
      (await this.deps.pending.results(accountId, ids)).map((r) => [`${r.inboxId}\u0000${r.senderKey}`, r]),
    );
    const vip = new Map<string, (address: string) => boolean>();
    for (const inbox of inboxes) vip.set(inbox.id, await this.deps.vips.matcher(accountId, inbox.id));
    const out = rows.map((r): SenderRow => {
      const result = results.get(`${r.inboxId}\u0000${r.senderKey}`);
      return {
        ...r,
        vip: vip.get(r.inboxId)?.(r.address) === true,
        unsubscribed:
          result === undefined
            ? null
            : { ...result, mailSince: r.lastSeen.getTime() > result.finishedAt.getTime() },
      };
    });
    const next = page.offset + out.length;
    return { rows: out, total, nextOffset: next < total ? next : null };
  }

  /** Checks one message's one-click header at the provider and, when it holds, creates an approval for it. */
  async propose(
    inbox: Inbox,
    messageId: string,
    confirmed: boolean,
    requestedBy: Requester | null = null,
  ): Promise<Result<Proposal, UnsubscribeError>> {
    const id = parseMessageId(messageId);
    const summary = id === undefined ? undefined : await this.deps.messages.get(inbox.id, id);
    if (summary === undefined) return err({ code: 'message_not_found' });
    const isVip = await this.deps.vips.matcher(inbox.accountId, inbox.id);
    if (isVip(summary.from.address) && !confirmed)
      return err({ code: 'vip_confirmation_required', sender: summary.from.address });
    const folder = await this.deps.folders.get(inbox.id, summary.folderId);
    if (folder === undefined) return err({ code: 'message_not_found' });
    // Too large to read whole, as the index knows: not downloaded to find that out (decision 0099).
    if (summary.size > MAX_RAW_BYTES) {
      const { reason, fallback } = tooLargeVerdict(summary.listUnsubscribe);
      return err({ code: 'unsubscribe_unavailable', reason, fallback });
    }
    const raw = await this.fetchRaw(inbox, folder.path, summary.providerRef);
    if (!raw.ok) return raw;
    if (raw.value === undefined) return err({ code: 'message_not_found' });
    const message = raw.value;
    const verdict = await oneClickVerdict(message, () =>
      this.deps.dkim.verify(message, { demo: inbox.isDemo }),
    );
    if (!verdict.oneClick)
      return err({ code: 'unsubscribe_unavailable', reason: verdict.reason, fallback: verdict.fallback });

    const { code, codeHash } = newApprovalCode();
    const pendingUnsubscribeId = newId('pu');
    const senderKey = summary.listId ?? summary.from.address.toLowerCase();
    // One approval waits per sender (decision 0128): an agent asking again — a retry, a later session — replaces the
    // one before, so the person is not shown the same request many times, nor asked to approve an older copy. Two
    // proposals at once take turns, and the time is read in turn, so the later stands.
    const expiresAt = await this.deps.serial.run([`unsubscribe:${inbox.id}:${senderKey}`], async () => {
      const now = this.deps.clock.now();
      const expiresAt = new Date(now.getTime() + UNSUBSCRIBE_APPROVAL_TTL_MS);
      await this.deps.pending.create({
        id: pendingUnsubscribeId,
        accountId: inbox.accountId,
        inboxId: inbox.id,
        messageId: summary.id,
        senderKey,
        senderAddress: summary.from.address.toLowerCase(),
        url: verdict.url,
        codeHash,
        attempts: 0,
        status: 'pending',
        createdAt: now,
        expiresAt,
        claimedAt: null,
        finishedAt: null,
        httpStatus: null,
        error: null,
        requestedBy,
      });
      await this.deps.pending.expireEarlier(
        { id: pendingUnsubscribeId, inboxId: inbox.id, senderKey, createdAt: now },
        now,
      );
      return expiresAt;
    });
    return ok({
      pendingUnsubscribeId,
      approvalCode: code,
      expiresAt,
      sender: summary.from,
      listId: summary.listId,
      url: verdict.url,
      signedBy: verdict.signedBy,
    });
  }

  /** The whole message as the provider holds it: the signature covers the body too. */
  private async fetchRaw(
    inbox: Inbox,
    path: string,
    ref: string,
  ): Promise<Result<Uint8Array | undefined, UnsubscribeError>> {
    try {
      const session = await this.deps.sessions.open(inbox);
      try {
        return ok(await session.fetchRaw(path, ref));
      } finally {
        await session.close().catch(() => undefined);
      }
    } catch (e) {
      if (e instanceof MailAuthError) return err({ code: 'needs_reconnect', message: e.message });
      if (e instanceof MailProviderError) return err({ code: 'provider_error', detail: e.message });
      throw e;
    }
  }

  /** Redeems an approval: exactly one request per approval, whatever the number of concurrent callers. */
  async confirm(who: Reach, req: ConfirmRequest): Promise<Result<Confirmation, UnsubscribeError>> {
    const { accountId } = who;
    if (!req.confirmedInApp && !req.approvedInChat)
      return err({ code: 'human_approval_required', inAppRequired: false });
    const now = this.deps.clock.now();
    const check = await checkApprovalCode(
      this.deps.pending,
      accountId,
      { id: req.pendingUnsubscribeId, code: req.approvalCode },
      { idShape: PENDING_UNSUBSCRIBE_ID, maxWrongCodes: UNSUBSCRIBE_MAX_WRONG_CODES, now },
    );
    if (!check.ok) return err(refusal(check));
    const p = check.approval;
    // Only in an inbox the agent may reach (decision 0142).
    const inbox = await this.deps.inboxes.usable(who, p.inboxId);
    if (!inbox.ok) return inbox;
    const prefs = await this.deps.profiles.effective(accountId, p.inboxId);
    if (prefs.sending.requireInAppConfirmation && !req.confirmedInApp)
      return err({ code: 'human_approval_required', inAppRequired: true });
    return this.redeem(accountId, p, inbox.value, now);
  }

  /** Approvals waiting for the person (Waiting for you), newest first. */
  waiting(accountId: AccountId): Promise<{ items: PendingUnsubscribe[]; more: boolean }> {
    return newestWaiting((limit) => this.deps.pending.waiting(accountId, this.deps.clock.now(), limit));
  }

  /** The person declines it in the app: its code will never make the request. */
  discard(accountId: AccountId, id: string): Promise<boolean> {
    return this.deps.pending.discard(accountId, id);
  }

  /**
   * Marks requests left `posting` by a process that died as `unknown`: the sender may or may not have received it,
   * and it is never made again on its own (as stranded sends; decision 0031). Run on start and periodically.
   */
  async recoverStranded(): Promise<number> {
    const now = this.deps.clock.now();
    const stranded = await this.deps.pending.stranded(new Date(now.getTime() - STRANDED_AFTER_MS));
    for (const p of stranded)
      await this.deps.pending.finish(p.id, 'unknown', now, {
        httpStatus: null,
        error: 'the process stopped during the request',
      });
    return stranded.length;
  }

  /**
   * The person confirms in the app: no code (the person is the authority, signed in); every other rule holds —
   * a pending, unexpired approval, a usable inbox, one conditional claim, so a double click makes one request.
   */
  async confirmFromApp(accountId: AccountId, id: string): Promise<Result<Confirmation, UnsubscribeError>> {
    const now = this.deps.clock.now();
    const check = await checkApprovalInApp(this.deps.pending, accountId, id, {
      idShape: PENDING_UNSUBSCRIBE_ID,
      now,
    });
    if (!check.ok) return err(refusal(check));
    const p = check.approval;
    const inbox = await this.deps.inboxes.usable(wholeAccount(accountId), p.inboxId);
    if (!inbox.ok) return inbox;
    return this.redeem(accountId, p, inbox.value, now);
  }

  /** Claims the approval (one caller wins) and makes the one request. */
  private async redeem(
    accountId: AccountId,
    p: PendingUnsubscribe,
    inbox: Inbox,
    now: Date,
  ): Promise<Result<Confirmation, UnsubscribeError>> {
    if (!(await this.deps.pending.claim(p.id, now))) {
      const again = await this.deps.pending.get(accountId, p.id);
      // Locked by wrong codes that raced this one: refused as it would be after them.
      if (again?.status === 'locked') return err(refusal({ ok: false, reason: 'locked' }));
      return err({ code: 'approval_used', status: again?.status ?? 'posting' });
    }
    const isDemo = inbox.isDemo;
    const outcome = await (isDemo ? this.deps.posters.demo : this.deps.posters.real).post(p.url);
    const finished = finalStatus(outcome);
    await this.deps.pending.finish(p.id, finished.status, this.deps.clock.now(), finished);
    if (finished.status !== 'done')
      this.deps.log.info(
        { pendingUnsubscribeId: p.id, status: finished.status },
        'unsubscribe not confirmed by sender',
      );
    const stored = (await this.deps.pending.get(accountId, p.id)) ?? p;
    return ok({ pending: stored, outcome, isDemo });
  }
}

function finalStatus(o: PostOutcome): {
  status: 'done' | 'rejected' | 'refused' | 'unknown';
  httpStatus: number | null;
  error: string | null;
} {
  switch (o.kind) {
    case 'answered':
      return o.status >= 200 && o.status < 300
        ? { status: 'done', httpStatus: o.status, error: null }
        : { status: 'rejected', httpStatus: o.status, error: null };
    case 'refused':
      return { status: 'refused', httpStatus: null, error: o.reason };
    case 'failed':
      return { status: 'unknown', httpStatus: null, error: o.reason };
    case 'recorded':
      return { status: 'done', httpStatus: null, error: null };
  }
}

/** Why an unsubscribe request is refused when its code did not redeem the approval. */
function refusal(check: Exclude<ApprovalCheck<PendingUnsubscribe>, { ok: true }>): UnsubscribeError {
  switch (check.reason) {
    case 'not_found':
      return { code: 'approval_invalid' };
    case 'locked':
      return { code: 'approval_invalid', attemptsLeft: 0, locked: true };
    case 'wrong_code':
      return { code: 'approval_invalid', attemptsLeft: check.attemptsLeft };
    case 'used':
      return { code: 'approval_used', status: check.status };
    case 'expired':
      return { code: 'approval_expired' };
  }
}
