import type { AccountId } from '../accounts/account.ts';
import { parseInboxId, type InboxId } from '../inboxes/inbox.ts';

/**
 * Which of the account's inboxes one agent may reach (decision 0142): `null` for every inbox, those added later too
 * (what a credential made without a choice holds), else exactly these. An inbox outside it is, to that agent, not
 * there: not listed, not found, its mail and everything leading to it (drafts, undo handles, Screened, unsubscribe
 * proposals, download links, a lease) out of reach.
 */
export type InboxReach = ReadonlySet<InboxId> | null;

export const EVERY_INBOX: InboxReach = null;

/**
 * Whose mail a call may touch: the account, and which of its inboxes. An agent's `Principal` is one; the person in
 * the console reaches every inbox of their account (`wholeAccount`).
 */
export interface Reach {
  readonly accountId: AccountId;
  readonly inboxes: InboxReach;
}

export function wholeAccount(accountId: AccountId): Reach {
  return { accountId, inboxes: EVERY_INBOX };
}

/** Whether `reach` takes in the inbox with this id. */
export function reaches(reach: InboxReach, inboxId: string): boolean {
  return reach === null || reach.has(inboxId as InboxId);
}

/** As stored: `null` for every inbox, else the ids separated by spaces ('' for none left). */
export function storedReach(reach: InboxReach): string | null {
  return reach === null ? null : [...reach].sort().join(' ');
}

/** A stored value read back; anything that is not an inbox id is dropped, so a credential never reaches more. */
export function readReach(stored: string | null): InboxReach {
  if (stored === null) return null;
  return new Set(stored.split(' ').flatMap((s) => parseInboxId(s) ?? []));
}

/** The inboxes a person ticked, among those the account has (`owned`); ids it does not have are ignored. */
export function chosenReach(
  chosen: Iterable<string>,
  owned: readonly { readonly id: InboxId }[],
): ReadonlySet<InboxId> {
  const wanted = new Set(chosen);
  return new Set(owned.filter((i) => wanted.has(i.id)).map((i) => i.id));
}
