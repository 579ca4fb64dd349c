import type { AccountId } from '../accounts/account.ts';
import type { CodeApprovalReader } from '../approvals/approval-code.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type {
  PendingUnsubscribe,
  PendingUnsubscribeStatus,
  UnsubscribeResult,
} from './pending-unsubscribe.ts';

/**
 * Approvals to unsubscribe. As for sends, every transition is one conditional statement: of any number of
 * racing `claim`s exactly one returns true, so one approval makes at most one request.
 */
export interface PendingUnsubscribeStore extends CodeApprovalReader<PendingUnsubscribe> {
  create(p: PendingUnsubscribe): Promise<void>;
  /** `pending` and not expired → `posting`; true for exactly one caller. */
  claim(id: string, now: Date): Promise<boolean>;
  /** `posting` → a final status, with what the server answered. */
  finish(
    id: string,
    status: Extract<PendingUnsubscribeStatus, 'done' | 'rejected' | 'refused' | 'unknown'>,
    now: Date,
    outcome: { httpStatus: number | null; error: string | null },
  ): Promise<void>;
  /**
   * Ends the other approvals still waiting for the same sender of the same inbox, asked no later than `newer`
   * (decision 0128): their time is over at `now`, as if they had expired. Of two proposals racing in the same
   * millisecond both may end (nothing is unsubscribed without a proposal that stands). How many.
   */
  expireEarlier(
    newer: Pick<PendingUnsubscribe, 'id' | 'inboxId' | 'senderKey' | 'createdAt'>,
    now: Date,
  ): Promise<number>;
  /** This account's approvals still waiting (pending, unexpired), newest first. */
  waiting(accountId: AccountId, now: Date, limit: number): Promise<PendingUnsubscribe[]>;
  /** `pending` → `discarded` for this account; true for exactly one caller. */
  discard(accountId: AccountId, id: string): Promise<boolean>;
  /** Requests claimed before `before` and never finished: left behind by a process that died mid-request. */
  stranded(before: Date): Promise<PendingUnsubscribe[]>;
  /** The latest finished request per (inbox, sender) of these inboxes. */
  results(accountId: AccountId, inboxIds: readonly InboxId[]): Promise<UnsubscribeResult[]>;
  /**
   * The housekeeping sweep (decision 0123): removes the requests whose time was over before `before` — ended unused
   * (expired waiting, discarded, locked), or finished and since followed by a later finished request for the same
   * sender — keeping each sender's latest finished one (`results`). One in flight is never removed. How many.
   */
  deleteEnded(before: Date): Promise<number>;
}
