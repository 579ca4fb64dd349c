import type {
  AttachmentContent,
  FlagState,
  FolderChanges,
  FullMessage,
  ImapEndpoint,
  MailCredential,
  RemoteFolder,
  RemoteSummary,
  SearchHit,
  SyncCursor,
} from './mail-types.ts';

/** Reads folders and messages. */
export interface MailboxReader {
  listFolders(): Promise<RemoteFolder[]>;
  /** Up to `count` messages with position < `below`, newest first (loading older mail past the window). */
  fetchOlder(path: string, below: number, count: number): Promise<RemoteSummary[]>;
  fetchMessage(path: string, ref: string): Promise<FullMessage | undefined>;
}

/**
 * Changes in one folder since a cursor, within a window of the newest `windowSize` messages on first sync.
 * With CONDSTORE/QRESYNC the adapter asks only for what changed; otherwise it diffs flags of `knownRefs`.
 * A UIDVALIDITY change returns `reset: true` with a fresh window (RFC 3501 §2.3.1.1).
 */
export interface ChangeFeed {
  changes(
    path: string,
    cursor: SyncCursor | null,
    opts: { windowSize: number; knownRefs: readonly string[] },
  ): Promise<FolderChanges>;
  /** Current flags of these refs (for a targeted re-check after our own change). */
  flagsOf(path: string, refs: readonly string[]): Promise<FlagState[]>;
  /**
   * Notices new mail in `path` (IMAP IDLE on its own connection) and calls `onChange`; resolves to a stop function.
   * Providers without push may poll.
   */
  watch(path: string, onChange: () => void): Promise<() => Promise<void>>;
}

/** Searches the whole mailbox at the provider, not only the synced window. */
export interface Searcher {
  search(query: string, paths: readonly string[], limit: number): Promise<SearchHit[]>;
}

/** Streams one attachment from the provider. */
export interface AttachmentFetcher {
  openAttachment(path: string, ref: string, partId: string): Promise<AttachmentContent | undefined>;
}

/** A logged-in connection to one mailbox with every read capability. */
export interface MailSession extends MailboxReader, ChangeFeed, Searcher, AttachmentFetcher {
  close(): Promise<void>;
}

export type LoginFailure =
  | { readonly reason: 'auth_failed'; readonly message: string }
  | { readonly reason: 'unreachable'; readonly message: string }
  | { readonly reason: 'tls_required'; readonly message: string }
  | { readonly reason: 'refused_host'; readonly message: string };

/** Opens sessions for one provider family (IMAP/iCloud now; Gmail and Graph later). */
export interface MailConnector {
  connect(endpoint: ImapEndpoint, credential: MailCredential): Promise<MailSession>;
  /**
   * Watches one folder on a connection of its own (IMAP IDLE), without holding a full session: the background
   * scheduler keeps one of these per connected inbox.
   */
  watch(
    endpoint: ImapEndpoint,
    credential: MailCredential,
    path: string,
    onChange: () => void,
  ): Promise<() => Promise<void>>;
  /** Logs in and out once, to check a credential before it is saved. */
  testLogin(endpoint: ImapEndpoint, credential: MailCredential): Promise<LoginFailure | undefined>;
}

/** Thrown by adapters when the provider refuses the credential: the inbox then needs reconnecting. */
export class MailAuthError extends Error {
  override readonly name = 'MailAuthError';
}

/** Thrown by adapters for any other provider failure; `message` is safe to show (no provider internals). */
export class MailProviderError extends Error {
  override readonly name = 'MailProviderError';
}
