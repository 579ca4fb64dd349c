import type { AccountId } from '../accounts/account.ts';

/** What one change did to one message, enough to put it back. */
export interface UndoEntry {
  readonly inboxId: string;
  readonly messageId: string;
  /** Its Message-ID header (records before 2026-11-25 lack it): finds a moved message the index has not caught up with. */
  readonly internetMessageId?: string | null;
  /** The folder it was in before; for a move, the folder it went to as well. */
  readonly fromFolderId: string;
  readonly toFolderId: string | null;
  readonly before: {
    readonly unread: boolean;
    readonly starred: boolean;
    readonly labels: readonly string[];
  };
  /**
   * For flag changes: the IMAP flags the action added and removed, so undo reverses only what it did; and the labels
   * it added to the mailbox's own list of labels (a Gmail label made on first use), which an undo takes away again
   * once no message carries them (decision 0146).
   */
  readonly flags?: {
    readonly add: readonly string[];
    readonly remove: readonly string[];
    readonly made?: readonly string[];
  };
}

export interface UndoRecord {
  readonly id: string;
  readonly accountId: AccountId;
  readonly action: string;
  readonly entries: readonly UndoEntry[];
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** Undo handles live 7 days and are consumed once (DESIGN.md §4). */
export interface UndoStore {
  save(record: UndoRecord): Promise<void>;
  /** Removes the handles expired by `now` (a background sweep). */
  deleteExpired(now: Date): Promise<void>;
  /**
   * Replaces the entries of a handle just written ahead of its change with those of the changes made; with none,
   * removes it.
   */
  settle(accountId: AccountId, id: string, entries: readonly UndoEntry[]): Promise<void>;
  /** Takes a live handle of this account; exactly one of concurrent callers gets it. */
  consume(accountId: AccountId, id: string, now: Date): Promise<UndoRecord | undefined>;
  /** A live, unused handle of this account, without taking it (to check what it covers before consuming). */
  find(accountId: AccountId, id: string, now: Date): Promise<UndoRecord | undefined>;
  /**
   * Live, unused handles of this account written before `before` that no audit entry names: changes whose call
   * never reported back (the process died mid-way), so neither the agent nor the Activity table has their handle.
   */
  interrupted(accountId: AccountId, now: Date, before: Date): Promise<UndoRecord[]>;
  /** Any handle of this account, used or expired too, to describe what a change did; with when it was used. */
  describe(
    accountId: AccountId,
    id: string,
  ): Promise<(UndoRecord & { readonly usedAt: Date | null }) | undefined>;
}
