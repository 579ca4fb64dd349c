import type { AccountId } from '../accounts/account.ts';
import type { CodeApprovalReader } from '../approvals/approval-code.ts';
import type { Draft, PendingSend, PendingSendStatus } from './draft.ts';

export interface DraftStore {
  create(draft: Draft): Promise<void>;
  /** Scoped by account: a draft id of another account is not found. */
  get(accountId: AccountId, id: string): Promise<Draft | undefined>;
  /** Several at once, in no particular order; scoped by account as `get`, ids not found left out. */
  getMany(accountId: AccountId, ids: readonly string[]): Promise<Draft[]>;
  /** Records where the mailbox copy was written, and that it is written (clears `beginCopy`'s mark). */
  placed(id: string, folderPath: string, providerDraftId: string | null, now: Date): Promise<void>;
  /**
   * Replaces the content when the stored version is `expectedVersion` (optimistic lock); the version goes up by
   * one, which invalidates every approval of the old content. Returns the new draft, or undefined on a conflict.
   */
  edit(
    accountId: AccountId,
    id: string,
    expectedVersion: number,
    content: { to: string; subject: string; body: string },
    now: Date,
  ): Promise<Draft | undefined>;
  setStatus(id: string, status: Draft['status'], now: Date): Promise<void>;
  /**
   * Marks the draft's mailbox copy as being rewritten, if the draft is still a draft at `expectedVersion`; false
   * otherwise. A new draft is created marked (its folder null); `placed` clears the mark (decision 0031).
   */
  beginCopy(accountId: AccountId, id: string, expectedVersion: number, now: Date): Promise<boolean>;
  /** Drafts whose copy has been marked as being written since before `before`: a process did not finish. Oldest first. */
  pendingCopies(before: Date, limit: number): Promise<Draft[]>;
  /**
   * Takes a draft `pendingCopies` returned for finishing its copy: renews the mark (to `now`) if it is still older
   * than `before`. True for exactly one of concurrent callers (sweeps on several nodes).
   */
  claimPendingCopy(id: string, before: Date, now: Date): Promise<boolean>;
  /**
   * `placed` for the sweep that claimed the draft at `claimedAt`: only if no edit has marked the copy since (an edit
   * the person started meanwhile writes the copy that counts). True when recorded.
   */
  placedByClaim(
    id: string,
    claimedAt: Date,
    folderPath: string,
    providerDraftId: string | null,
    now: Date,
  ): Promise<boolean>;
  /**
   * The housekeeping sweep (decision 0123): removes, with their approvals and card codes, the drafts sent or discarded
   * before `finishedBefore`, and the open ones last changed before `untouchedBefore` whose mailbox copy is not being
   * written and that no send is under way for (the copy stays in the mailbox, the person's). How many.
   */
  deleteFinished(finishedBefore: Date, untouchedBefore: Date): Promise<number>;
}

/**
 * Approvals to send one draft version. Every transition is one conditional statement, so concurrent callers
 * cannot both pass: of 100 racing `claim`s exactly one returns true.
 */
export interface PendingSendStore extends CodeApprovalReader<PendingSend> {
  create(send: PendingSend): Promise<void>;
  /** `pending` and not expired → `sending`; true for exactly one caller. */
  claim(id: string, now: Date): Promise<boolean>;
  /** `sending` → `pending` again: the server refused before accepting anything, the code stays usable. */
  unclaim(id: string): Promise<void>;
  /** `sending` → `sent` or `unknown`. */
  finish(
    id: string,
    status: Extract<PendingSendStatus, 'sent' | 'unknown'>,
    now: Date,
    error: string | null,
  ): Promise<void>;
  /** This account's sends still waiting for approval (pending, unexpired), newest first. */
  waiting(accountId: AccountId, now: Date, limit: number): Promise<PendingSend[]>;
  /** `pending` → `discarded` for this account; true for exactly one caller, false once claimed or used. */
  discard(accountId: AccountId, id: string): Promise<boolean>;
  /** Sends claimed before `before` and never finished: left behind by a process that died mid-send. */
  stranded(before: Date): Promise<PendingSend[]>;
  /**
   * The housekeeping sweep (decision 0123): removes the approvals whose time was over before `before` — finished
   * then (sent, unknown), or ended unused then (expired waiting, discarded, locked). One in flight is never removed.
   * How many.
   */
  deleteEnded(before: Date): Promise<number>;
}
