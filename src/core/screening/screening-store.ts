import type { AccountId } from '../accounts/account.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { FolderId } from '../messages/folder.ts';
import type { MessageSummary } from '../messages/message.ts';
import type { Resolution, ScreenedDigest, ScreenedRow, Screening, Verdict } from './screening.ts';

export interface ScreeningItem {
  readonly accountId: AccountId;
  readonly inboxId: string;
  readonly messageId: string;
  readonly senderAddress: string;
}

/**
 * Screening records (DESIGN.md §4, contract §4.9). Every method is scoped by account or inbox: an id of another
 * account matches nothing. Verdicts are recorded by conditional updates, so of racing confirms one records each.
 */
export interface ScreeningStore {
  /**
   * Messages of this folder with no verdict yet that the person has not marked (no star, no label), newest first.
   * Senders are not filtered here (VIP and known-good rules live in the core).
   */
  unscreened(
    inboxId: InboxId,
    folderId: FolderId,
    page: { readonly limit: number; readonly offset: number },
  ): Promise<MessageSummary[]>;
  /** Hands messages out: a new row, or a fresh offer on a row still without a verdict. */
  offer(items: readonly ScreeningItem[], now: Date, expiresAt: Date): Promise<void>;
  /**
   * Records a verdict on a message handed out to this account, still unexpired and undecided; the row, or
   * undefined (never handed out, another account's, expired, or already judged).
   */
  decide(
    accountId: AccountId,
    inboxId: string,
    messageId: string,
    verdict: Verdict,
    reason: string | null,
    now: Date,
  ): Promise<Screening | undefined>;
  /** Takes a verdict back because its change failed: the message is handed out again as before. */
  undecide(id: string): Promise<void>;
  /** Records junk verdicts of the sync's blocklist for messages that have none yet; the rows recorded. */
  recordBlocked(
    items: readonly (ScreeningItem & { readonly reason: string })[],
    now: Date,
  ): Promise<Screening[]>;
  /**
   * Settles messages from a VIP or known-good sender whose From the person's provider did not find forged: fine,
   * never handed out (decision 0101). A message that already has a verdict keeps it.
   */
  recordExempt(items: readonly ScreeningItem[], now: Date): Promise<void>;
  get(accountId: AccountId, inboxId: string, id: string): Promise<Screening | undefined>;
  resolve(id: string, resolution: Resolution, now: Date): Promise<void>;
  /** Remembers the undo handle of the change that applied these verdicts. */
  setUndo(ids: readonly string[], undoId: string): Promise<void>;
  /** Junk screened since `since` whose message is still in its inbox's Screened folder, newest first. */
  screened(
    inboxIds: readonly string[],
    since: Date,
    page: { readonly limit: number; readonly offset: number },
  ): Promise<{ rows: ScreenedRow[]; total: number }>;
  digest(inboxIds: readonly string[], since: Date): Promise<ScreenedDigest>;
  /**
   * Removes, for every account, the rows of messages the index no longer holds (deleted, or gone from the mailbox)
   * whose last event — offer, verdict or resolution — came before `before` (the hourly sweep); how many.
   */
  deleteForgotten(before: Date): Promise<number>;
}
