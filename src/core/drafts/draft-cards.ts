import type { Reach } from '../auth/inbox-reach.ts';
import type { Clock } from '../../lib/clock.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { newSecret, sha256Hex } from '../../lib/secret-token.ts';
import type { AccountId } from '../accounts/account.ts';
import type { Principal } from '../auth/principal.ts';
import type { InboxService } from '../inboxes/inbox-service.ts';
import type { SendError, SendOutcome, SendService } from '../sending/send-service.ts';
import { sameRecipients } from './draft-input.ts';
import type { DraftError, DraftService } from './draft-service.ts';
import type { Draft } from './draft.ts';

/** How long a card code works: a card left open longer asks to be shown again. */
export const CARD_CODE_TTL_MS = 30 * 60_000;
const CARD_CODE = /^card_[A-Za-z0-9]{32}$/;

/** A card code as stored: only its hash, bound to one account, one draft and one version of it. */
export interface CardCode {
  readonly hash: string;
  readonly accountId: AccountId;
  readonly draftId: string;
  readonly draftVersion: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export type Redeemed =
  | { readonly ok: true; readonly draftId: string; readonly draftVersion: number }
  | { readonly ok: false; readonly reason: 'unknown' | 'used' | 'expired' };

export interface CardCodeStore {
  issue(code: CardCode): Promise<void>;
  /**
   * Marks the code used when it is this account's, unused and unexpired — one conditional statement, so of any
   * number of racing callers exactly one gets `ok`. Otherwise says why (a code of another account is `unknown`).
   */
  redeem(accountId: AccountId, hash: string, now: Date): Promise<Redeemed>;
  /** The housekeeping sweep: removes the codes that expired before `before`, used or not (decision 0123). How many. */
  deleteExpired(before: Date): Promise<number>;
}

/** A refusal of the card's code or content (`card: true` tells it from the send and draft errors it may also get). */
export interface CardError {
  readonly card: true;
  readonly code:
    'approval_invalid' | 'approval_used' | 'approval_expired' | 'confirm_mismatch' | 'draft_changed';
  readonly message: string;
}

const refuse = (code: CardError['code'], message: string) => err<CardError>({ card: true, code, message });

export interface CardContent {
  readonly to: string;
  readonly subject: string;
  readonly body: string;
}

export interface IssuedCode {
  readonly code: string;
  readonly expiresAt: Date;
}

/**
 * The draft card's approval (contract §4.4: the card's save and send). The server cannot
 * tell a view's call from a model's, so the card's buttons work only with a code the card received with the draft:
 * random, stored as a hash, single use, bound to account + draft + version, 30 minutes. A save spends the code and
 * hands the card a new one for the new version; a send spends it and sends exactly the content the card showed.
 */
export class DraftCardService {
  private readonly deps: {
    readonly codes: CardCodeStore;
    readonly drafts: DraftService;
    readonly sending: SendService;
    readonly inboxes: InboxService;
    readonly clock: Clock;
  };
  constructor(deps: DraftCardService['deps']) {
    this.deps = deps;
  }

  /** A fresh code for the draft as it is now. */
  async issue(draft: Draft): Promise<IssuedCode> {
    const code = newSecret('card_', 32);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + CARD_CODE_TTL_MS);
    await this.deps.codes.issue({
      hash: sha256Hex(code),
      accountId: draft.accountId,
      draftId: draft.id,
      draftVersion: draft.version,
      createdAt: now,
      expiresAt,
    });
    return { code, expiresAt };
  }

  /** The person saved an edit on the card. */
  async update(
    who: Reach,
    code: string,
    content: CardContent,
  ): Promise<Result<{ draft: Draft; next: IssuedCode }, CardError | DraftError>> {
    const draft = await this.redeem(who, code);
    if (!draft.ok) return draft;
    const edited = await this.deps.drafts.edit(who, draft.value.id, draft.value.version, {
      to: content.to,
      subject: content.subject,
      text: content.body,
    });
    if (!edited.ok) {
      const e = edited.error;
      return e.code === 'draft_changed' ? refuse('draft_changed', e.message) : err(e);
    }
    return ok({ draft: edited.value, next: await this.issue(edited.value) });
  }

  /** The person pressed Send on the card: sends once, and only what the card showed. */
  async send(
    principal: Principal,
    code: string,
    content: CardContent,
  ): Promise<Result<SendOutcome, CardError | SendError>> {
    const draft = await this.redeem(principal, code);
    if (!draft.ok) return draft;
    if (!sameContent(draft.value, content)) {
      return refuse(
        'confirm_mismatch',
        'The card shows other content than the draft holds. Save the edit first, then send the saved version.',
      );
    }
    return this.deps.sending.sendFromCard(principal, draft.value);
  }

  private async redeem(who: Reach, code: string): Promise<Result<Draft, CardError>> {
    if (!CARD_CODE.test(code))
      return refuse('approval_invalid', 'This is not a card code the server issued.');
    const r = await this.deps.codes.redeem(who.accountId, sha256Hex(code), this.deps.clock.now());
    if (!r.ok) {
      switch (r.reason) {
        case 'used':
          return refuse(
            'approval_used',
            'This card code was already used; each works once. Show the draft again.',
          );
        case 'expired':
          return refuse(
            'approval_expired',
            'This card expired (codes last 30 minutes). Show the draft again.',
          );
        default:
          return refuse('approval_invalid', 'This is not a card code the server issued.');
      }
    }
    const draft = await this.deps.drafts.get(who, r.draftId);
    if (draft?.status !== 'draft' || draft.version !== r.draftVersion) {
      return refuse(
        'approval_invalid',
        'The draft changed, was sent or is gone since this card was shown. Show the draft again.',
      );
    }
    return ok(draft);
  }
}

/** Recipients as a set of addresses, subject trimmed, body with its line ends normalised: what the person saw. */
function sameContent(draft: Draft, content: CardContent): boolean {
  return (
    sameRecipients(draft.to, content.to) &&
    draft.subject.trim() === content.subject.trim() &&
    draft.body === content.body.replace(/\r\n?/g, '\n')
  );
}
