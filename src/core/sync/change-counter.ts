import type { InboxId } from '../inboxes/inbox.ts';

/**
 * Counts the changes our own actions and undos make to each inbox's mailbox, as every node sees them (decision
 * 0034). An action counts its change after making it at the provider and before it lets go of the inbox; a sync
 * reads the count before it reads a folder and again, under the same lock, before it writes: a different count
 * means an action changed the mailbox after the sync's read, and what the sync read is checked again first.
 */
export interface ChangeCounter {
  /** The count for this inbox (0 before its first change). */
  read(inboxId: InboxId): Promise<number>;
  /** One more change to each of these inboxes' mailboxes. */
  bump(inboxIds: readonly InboxId[]): Promise<void>;
}

/**
 * Runs `work`, which may change these inboxes' mailboxes, and counts one change to each of them afterwards — also
 * when it fails part-way, since part of it may be done. Call it while holding the inboxes' lock. A count that cannot
 * be written is let go: the action's own answer matters more, and the next sync corrects what a sync writes stale.
 */
export async function counted<T>(
  counter: ChangeCounter,
  inboxIds: readonly InboxId[],
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } finally {
    await counter.bump(inboxIds).catch(() => undefined);
  }
}
