import type { AccountId } from '../accounts/account.ts';
import type { JsonValue } from '../settings/settings-store.ts';
import type { InboxId } from './inbox.ts';

export type LinkPurpose =
  | 'imap_capture'
  | 'attachment'
  | 'google_signin'
  | 'microsoft_signin'
  /** A new password for an account, set without the old one: issued by the operator (decision 0067). */
  | 'password_reset';

/** A capability link handed to the person (or the agent, for downloads); stored by the hash of its token. */
export interface SecretLink {
  readonly idHash: string;
  readonly purpose: LinkPurpose;
  readonly accountId: AccountId;
  readonly inboxId: InboxId | null;
  readonly payload: JsonValue;
  readonly attempts: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface SecretLinkStore {
  create(link: Omit<SecretLink, 'attempts'>): Promise<void>;
  /** A live, unused link of this purpose. */
  find(idHash: string, purpose: LinkPurpose, now: Date): Promise<SecretLink | undefined>;
  /** Counts a failed use (a wrong password on the capture form); returns the new count. */
  countAttempt(idHash: string): Promise<number>;
  /** Marks it used; exactly one of concurrent callers gets true. */
  consume(idHash: string, now: Date): Promise<boolean>;
  /** The housekeeping sweep: removes the links that expired before `before`, used or not (decision 0123). How many. */
  deleteExpired(before: Date): Promise<number>;
}
