import type { FlagState } from '../mail/mail-types.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { FolderId } from './folder.ts';
import type { MessageId, MessageSummary } from './message.ts';

export interface MessageQuery {
  readonly folderId?: FolderId;
  /** Restrict to these folders (the inbox's selected ones) when no single folder is given. */
  readonly folderIds?: readonly FolderId[];
  readonly unreadOnly?: boolean;
  /** A substring over subject, sender and snippet, whatever its case and accents (decision 0086). */
  readonly text?: string;
  readonly fromAddress?: string;
  /** Only the messages of this conversation. */
  readonly threadId?: string;
  readonly limit: number;
  readonly offset: number;
}

export interface MessagePage {
  readonly items: MessageSummary[];
  readonly total: number;
}

/** What a listing shows of a message: no recipients, no provider handle. */
export type MessageHeadline = Pick<
  MessageSummary,
  | 'id'
  | 'folderId'
  | 'threadId'
  | 'subject'
  | 'from'
  | 'snippet'
  | 'date'
  | 'unread'
  | 'starred'
  | 'labels'
  | 'hasAttachments'
> & {
  /** Sent through a mailing list (List-Id or List-Unsubscribe). */
  readonly isList: boolean;
};

export interface HeadlineQuery {
  /** At least one; the page spans these folders. */
  readonly folderIds: readonly FolderId[];
  readonly unreadOnly?: boolean;
  /** A substring over subject, sender and snippet, whatever its case and accents (decision 0086). */
  readonly text?: string;
  readonly limit: number;
  readonly offset: number;
}

export interface HeadlinePage {
  readonly items: MessageHeadline[];
  /** How many messages match, on every page. */
  readonly total: number;
}

export type FlagUpdate = Pick<MessageSummary, 'unread' | 'starred' | 'labels'>;

/**
 * The local index of synced messages. Callers have already checked that the inbox belongs to the caller's
 * account; every method is additionally scoped by inbox so an id from elsewhere matches nothing.
 * Pages are ordered newest first (date, then position, then id) so offsets never skip or repeat rows.
 */
/** The most name and address pairs `sendersOf` answers with. */
export const SENDERS_OF_MAX = 5000;

export interface MessageStore {
  /** Inserts or updates by (folder, providerRef); an existing row keeps its id. */
  upsertMany(messages: readonly MessageSummary[]): Promise<void>;
  get(inboxId: InboxId, id: MessageId): Promise<MessageSummary | undefined>;
  /** `get` of each id in one statement: the ids not indexed in this inbox are left out, the order not kept. */
  getMany(inboxId: InboxId, ids: readonly MessageId[]): Promise<MessageSummary[]>;
  findByRef(folderId: FolderId, providerRef: string): Promise<MessageSummary | undefined>;
  /** The folder's messages with these refs, in the order given (refs not indexed are left out); one statement. */
  findByRefs(folderId: FolderId, providerRefs: readonly string[]): Promise<MessageSummary[]>;
  /** A message of the folder with this Message-ID header (the oldest indexed, if the header repeats). */
  findByInternetId(folderId: FolderId, internetMessageId: string): Promise<MessageSummary | undefined>;
  list(inboxId: InboxId, query: MessageQuery): Promise<MessagePage>;
  /** The listing's page: only the columns a preview shows, and the number of matches (one statement where it can). */
  headlines(inboxId: InboxId, query: HeadlineQuery): Promise<HeadlinePage>;
  updateFlags(inboxId: InboxId, id: MessageId, flags: FlagUpdate): Promise<boolean>;
  /** After a move we made: the same id now lives in another folder under another ref. */
  relocate(
    inboxId: InboxId,
    id: MessageId,
    folderId: FolderId,
    providerRef: string,
    position: number,
  ): Promise<boolean>;
  /** Expunged or moved away by someone else. Returns how many rows went. */
  removeByRefs(folderId: FolderId, providerRefs: readonly string[]): Promise<number>;
  /** Applies new flag states by provider ref (a sync's flag changes); unknown refs are ignored. */
  updateFlagsByRefs(folderId: FolderId, states: readonly FlagState[]): Promise<void>;
  /**
   * Whether these inboxes keep mail from this address, or from any address at this domain or under it, besides
   * `except`: in a folder that is not Screened, Spam or Trash (what a block on the sender would screen from now on).
   */
  keepsMailFrom(
    inboxIds: readonly InboxId[],
    from: { readonly address: string } | { readonly domain: string },
    except: MessageId,
  ): Promise<boolean>;
  /**
   * The display names these senders — addresses as stored or by addressKey, and domains with those under them — wrote
   * these inboxes' indexed mail under: distinct name and address pairs, names not empty, at most `SENDERS_OF_MAX`.
   * Screening asks whether a stranger uses the name of a sender the person trusts (decision 0118).
   */
  sendersOf(
    inboxIds: readonly InboxId[],
    senders: { readonly addresses: readonly string[]; readonly domains: readonly string[] },
  ): Promise<{ readonly name: string; readonly address: string }[]>;
  /** Distinct labels on the inbox's indexed messages, sorted. */
  labelsInUse(inboxId: InboxId): Promise<string[]>;
  /**
   * Every ref indexed in a folder with the Message-ID its row holds: what a sync knows of the folder (a full flags
   * diff; on a reset, whether a ref still names the message the row is — decision 0046).
   */
  listRefs(folderId: FolderId): Promise<KnownRef[]>;
}

/** A message the index holds in a folder: its ref there and its Message-ID header (null when it had none). */
export interface KnownRef {
  readonly ref: string;
  readonly internetMessageId: string | null;
}
