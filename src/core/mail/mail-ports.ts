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

/** `below` for `fetchOlder` that asks for a folder's newest messages, whatever a provider's positions are. */
export const NEWEST = Number.MAX_SAFE_INTEGER;

/** Reads folders and messages. */
export interface MailboxReader {
  listFolders(): Promise<RemoteFolder[]>;
  /**
   * Up to `count` messages with position < `below`, newest first (loading older mail past the window); `NEWEST`
   * for the folder's newest.
   */
  fetchOlder(path: string, below: number, count: number): Promise<RemoteSummary[]>;
  fetchMessage(path: string, ref: string): Promise<FullMessage | undefined>;
  /**
   * The message's RFC 5322 bytes exactly as the provider holds them (a DKIM signature covers them), up to
   * `MAX_RAW_BYTES`; undefined when the ref is not in the folder or the message is larger.
   */
  fetchRaw(path: string, ref: string): Promise<Uint8Array | undefined>;
  /**
   * Names of the labels the person defined at the provider, used on mail or not (Gmail user labels, Outlook master
   * categories). IMAP keywords exist only on messages: none here.
   */
  listLabels(): Promise<string[]>;
  /**
   * The name the provider itself puts on this mailbox's mail, where it keeps one (Gmail's primary send-as address);
   * undefined where it keeps none or does not say (IMAP; Microsoft tells it at sign-in instead, decision 0088).
   */
  ownName(): Promise<string | undefined>;
  /**
   * Where the message with this Message-ID header is in `path` now (the first, if the header repeats): finds mail
   * moved by a change whose answer was lost, so it can still be put back.
   */
  locate(path: string, internetMessageId: string): Promise<Placed | undefined>;
}

/** Raw messages are read whole (DKIM hashes the body): newsletters are far below this. */
export const MAX_RAW_BYTES = 10 * 1024 * 1024;

/**
 * Changes in one folder since a cursor, within a window of the newest `windowSize` messages on first sync.
 * With CONDSTORE/QRESYNC the adapter asks only for what changed; otherwise it diffs flags of `knownRefs`.
 * A UIDVALIDITY change returns `reset: true` with a fresh window (RFC 3501 §2.3.1.1): the old refs name nothing.
 * A provider whose refs outlive its change log (Gmail's history, Graph's delta tokens expire) answers an expired log
 * without a reset: the window read again as `added` (rows keep their ids) and the known refs gone from the folder as
 * `removed` (decision 0045).
 */
export interface ChangeFeed {
  changes(path: string, cursor: SyncCursor | null, opts: ChangeOptions): Promise<FolderChanges>;
  /** Current flags of these refs (for a targeted re-check after our own change). */
  flagsOf(path: string, refs: readonly string[]): Promise<FlagState[]>;
  /**
   * Notices new mail in `path` (IMAP IDLE on its own connection) and calls `onChange`; resolves to a stop function.
   * Providers without push may poll.
   */
  watch(path: string, onChange: () => void): Promise<() => Promise<void>>;
}

export interface ChangeOptions {
  readonly windowSize: number;
  readonly knownRefs: readonly string[];
  /**
   * When given, added messages are handed over here in batches as they are fetched (`reset` is the same value
   * the result will carry), and the result's `added` is empty: a large first sync then never holds the whole
   * window in memory. Batches come in no particular order; each is awaited before the next is handed over.
   */
  readonly onAdded?: (batch: readonly RemoteSummary[], reset: boolean) => Promise<void>;
}

/** For adapters that fetch everything at once: honours `onAdded` by handing the whole `added` over in one batch. */
export async function handOverAdded(
  changes: FolderChanges,
  onAdded: ChangeOptions['onAdded'],
): Promise<FolderChanges> {
  if (onAdded === undefined) return changes;
  if (changes.added.length > 0) await onAdded(changes.added, changes.reset);
  return { ...changes, added: [] };
}

/** Searches the whole mailbox at the provider, not only the synced window. */
export interface Searcher {
  search(query: string, paths: readonly string[], limit: number): Promise<SearchHit[]>;
}

/** Streams one attachment from the provider. */
export interface AttachmentFetcher {
  openAttachment(path: string, ref: string, partId: string): Promise<AttachmentContent | undefined>;
}

/** Where a message landed after a move or an append (IMAP: the UID from UIDPLUS COPYUID/APPENDUID). */
export interface Placed {
  readonly ref: string;
  readonly position: number;
}

/**
 * Changes mail. Nothing here deletes a message permanently except `deleteOwnDraft`, which removes a draft this
 * service wrote (after it was sent or replaced) — trash and spam are moves.
 */
export interface MailboxWriter {
  /**
   * Moves messages; the result maps each moved ref to its place in `toPath` (refs not found are absent). A failure
   * after some were moved is a PartialChangeError naming them.
   */
  move(path: string, refs: readonly string[], toPath: string): Promise<Map<string, Placed>>;
  /**
   * Adds and removes flags by IMAP name (`\Seen`, `\Flagged`, or keywords used as labels); refs not found are left
   * alone. Answers the refs it found in `path`, already as asked or not (decisions 0148, 0149). A failure after some
   * were changed is a PartialChangeError naming them.
   */
  setFlags(
    path: string,
    refs: readonly string[],
    add: readonly string[],
    remove: readonly string[],
  ): Promise<ReadonlySet<string>>;
  /** Appends an RFC 5322 message (a draft, a sent copy). */
  append(path: string, raw: Uint8Array, flags: readonly string[], date: Date): Promise<Placed | undefined>;
  deleteOwnDraft(path: string, ref: string): Promise<void>;
  /**
   * Creates a top-level folder with this name, or does nothing when one exists (IMAP CREATE, a Gmail label, a
   * Graph mail folder). The next `listFolders` lists it.
   */
  createFolder(name: string): Promise<void>;
  /**
   * Adds to the mailbox's own list of labels those of these it lacks, as putting them on mail would (a Gmail label),
   * and returns the names it added: what an undo may take away again. Where a label lives only on the messages that
   * carry it (IMAP keywords, Outlook categories set on a message) there is no list to add to: none.
   */
  makeLabels(names: readonly string[]): Promise<string[]>;
  /**
   * Takes a label out of the mailbox's own list of labels when no message carries it any more, and says whether it
   * did: undo removing a label its change made (decision 0146). False where applying a label makes no list entry
   * (IMAP keywords, Outlook categories set on a message) or the label is unknown or still in use.
   */
  removeLabelIfUnused(name: string): Promise<boolean>;
}

/** A logged-in connection to one mailbox with every capability. */
export interface MailSession extends MailboxReader, ChangeFeed, Searcher, AttachmentFetcher, MailboxWriter {
  close(): Promise<void>;
}

export type LoginFailure =
  | { readonly reason: 'auth_failed'; readonly message: string }
  | { readonly reason: 'unreachable'; readonly message: string }
  /** The server refused the login for a failure of its own (RFC 5530 UNAVAILABLE): nothing said of the credential. */
  | { readonly reason: 'unavailable'; readonly message: string }
  | { readonly reason: 'tls_required'; readonly message: string }
  /** The server's TLS certificate is not one this machine trusts (often one it made for itself, decision 0081). */
  | { readonly reason: 'certificate'; readonly message: string }
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
  override readonly name: string = 'MailProviderError';
}

/** A move's destination is not (or no longer) in the mailbox: the person deleted it elsewhere. Nothing was moved. */
export class FolderGoneError extends MailProviderError {
  override readonly name: string = 'FolderGoneError';
}

/**
 * A change the provider made for some of the messages before it failed — possible where each message is its own
 * request (Microsoft Graph): what was done stands and must be recorded (its undo entry, the index), so it says which.
 * `placed`: the moves made (as `MailboxWriter.move` returns them); `flagged`: the refs whose flags were changed.
 */
export class PartialChangeError extends MailProviderError {
  override readonly name = 'PartialChangeError';
  readonly placed: ReadonlyMap<string, Placed>;
  readonly flagged: ReadonlySet<string>;
  constructor(
    message: string,
    done: { placed?: ReadonlyMap<string, Placed>; flagged?: ReadonlySet<string> },
  ) {
    super(message);
    this.placed = done.placed ?? new Map();
    this.flagged = done.flagged ?? new Set();
  }
}
