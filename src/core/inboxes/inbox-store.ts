import type { Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';
import type { Folder } from '../messages/folder.ts';
import type { HeadlinePage, HeadlineQuery } from '../messages/message-store.ts';
import type { MessageId, MessageSummary } from '../messages/message.ts';
import type { ConnectionStatus, Inbox, InboxId } from './inbox.ts';

export type NewInbox = Omit<
  Inbox,
  'updatedAt' | 'lastError' | 'paused' | 'senderName' | 'credentialSetAt'
> & {
  readonly paused?: boolean;
};

/** An inbox and its folders (ordered by path), as one read saw them. */
export interface InboxWithFolders {
  readonly inbox: Inbox;
  readonly folders: readonly Folder[];
}

/** A page of the mail of the folders marked selected: a listing that names no folder. */
export type SelectedPageQuery = Omit<HeadlineQuery, 'folderIds'>;

/** An inbox, its folders, and a page of its selected folders' mail, as one read saw them. */
export interface InboxWithPage extends InboxWithFolders {
  readonly page: HeadlinePage;
}

/** A page of the selected folders read with its inbox, and what it was asked for. */
export interface SelectedPage {
  readonly query: SelectedPageQuery;
  readonly page: HeadlinePage;
}

/** An inbox, its folders, and those of the messages asked for that the index holds, as one read saw them. */
export interface InboxWithMessages extends InboxWithFolders {
  readonly messages: readonly MessageSummary[];
}

/**
 * An inbox and its folders; with the page of its selected folders, or the messages asked for, when the caller asked
 * for them in the same read.
 */
export interface InboxPlace extends InboxWithFolders {
  readonly selectedPage?: SelectedPage;
  /** The messages asked for that the index holds (the others are not indexed in this inbox). */
  readonly messages?: readonly MessageSummary[];
}

export interface InboxPatch {
  readonly label?: string;
  /** The mailbox address, when a sign-in showed it to be another than the one registered. */
  readonly email?: string;
  readonly paused?: boolean;
  readonly connectionStatus?: ConnectionStatus;
  readonly lastError?: string | null;
  /** Already checked (`checkSenderName`); empty for none. */
  readonly senderName?: string;
  /** The person gave the inbox a credential, or new servers, at this time. */
  readonly credentialSetAt?: Date;
  /** Where an IMAP inbox is reached and sends, as the person corrected it (already checked). */
  readonly servers?: MailServers;
}

/** An IMAP inbox's two servers: where it reads (IMAP) and where it hands mail over for sending (SMTP submission). */
export interface MailServers {
  readonly imapHost: string;
  readonly imapPort: number;
  readonly smtpHost: string;
  readonly smtpPort: number;
}

/**
 * Every read and write is scoped by the owning account: an inbox id of another account behaves exactly like
 * an id that does not exist. This is the tenant-isolation boundary the transports rely on.
 */
export interface InboxStore {
  create(inbox: NewInbox): Promise<Inbox>;
  /**
   * `create`, unless the account already has `maxPerAccount` inboxes, or already has an inbox `sameAs` says is this
   * one (that inbox is returned, `added: false`). Adds at once for one account are checked one after another (on
   * several nodes too), so they never pass the limit together, nor add one mailbox twice.
   */
  createWithinLimit(
    inbox: NewInbox,
    maxPerAccount: number,
    sameAs?: (existing: Inbox) => boolean,
  ): Promise<Result<{ readonly inbox: Inbox; readonly added: boolean }, 'limit_reached'>>;
  get(accountId: AccountId, id: InboxId): Promise<Inbox | undefined>;
  /**
   * `get` and the inbox's folders (the FolderStore's rows, by path) in one statement: the start of every tool call
   * that reads or changes an inbox's mail.
   */
  getWithFolders(accountId: AccountId, id: InboxId): Promise<InboxWithFolders | undefined>;
  /**
   * `getWithFolders` and, in the same statement, the page `MessageStore.headlines` gives for the folders marked
   * selected: the whole read of a listing that names no folder (decision 0047).
   */
  getWithSelectedPage(
    accountId: AccountId,
    id: InboxId,
    query: SelectedPageQuery,
  ): Promise<InboxWithPage | undefined>;
  /**
   * `getWithFolders` and the inbox's messages with these ids (`MessageStore.get` of each; ids not indexed in this
   * inbox left out, the order not kept), in the same statement where the store can (decision 0047): the read that
   * starts a change to messages or a read of one.
   */
  getWithMessages(
    accountId: AccountId,
    id: InboxId,
    messageIds: readonly MessageId[],
  ): Promise<InboxWithMessages | undefined>;
  /** Oldest first, so the list is stable. */
  list(accountId: AccountId): Promise<Inbox[]>;
  update(accountId: AccountId, id: InboxId, patch: InboxPatch, now: Date): Promise<Inbox | undefined>;
  /**
   * Sets the sender name learned from the person's Sent mail only while none is known (null): a name the person set
   * meanwhile stays. The name the inbox now has; undefined when the inbox is gone.
   */
  learnSenderName(accountId: AccountId, id: InboxId, name: string, now: Date): Promise<string | undefined>;
  /**
   * Sets `needs_reconnect` with the reason — unless the inbox's credential (CredentialVault) was written after
   * `credentialRead`, the moment the refused credential was read. One conditional statement (decision 0038): a
   * reconnection that lands at any moment is never undone by the failure of an operation that used the old
   * credential. True when the inbox was marked.
   */
  markNeedsReconnect(
    accountId: AccountId,
    id: InboxId,
    reason: string,
    credentialRead: Date,
    now: Date,
  ): Promise<boolean>;
  /** Every account's inboxes counted by provider and state (`paused`, else the connection status), for metrics. */
  countByState(): Promise<{ provider: string; state: string; count: number }[]>;
  /**
   * Inboxes that background sync should keep fresh at `now`: connected or demo, not paused, of an account whose agents
   * may act (`agentAccess`: not a trial that has ended, no failed payment; decision 0124) — across all accounts.
   */
  listSyncable(now: Date): Promise<Inbox[]>;
  /** One inbox by id, whatever its account, when background sync should keep it fresh (as `listSyncable`). */
  syncable(id: InboxId, now: Date): Promise<Inbox | undefined>;
  /** Cascades to folders and messages. */
  delete(accountId: AccountId, id: InboxId): Promise<boolean>;
}
